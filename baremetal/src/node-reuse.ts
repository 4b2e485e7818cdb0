// Node reuse names (N-3, N-4): a released host can be reserved for the next machine of the same
// control plane (`cp-<name>`) or MachineDeployment (`md-<name>`); the prefixes keep a control plane
// and a MachineDeployment of the same name apart. Pure: the caller lists the MachineSets.
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import type { Machine, MachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { CLUSTER_API_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { CONTROL_PLANE_LABEL } from './names.ts';

const CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';

/** The machine's reuse name cannot be derived; such a machine matches no reserved host (N-5). */
export class NodeReuseNameError extends Error {
  override name = 'NodeReuseNameError';
}

/** The label value for a control plane or a MachineDeployment. */
export function nodeReuseLabelValue(owner: { readonly controlPlane: string } | { readonly machineDeployment: string }): string {
  return 'controlPlane' in owner ? `cp-${owner.controlPlane}` : `md-${owner.machineDeployment}`;
}

/** Cluster API's rule: the control-plane label is present, whatever its value. */
export function isControlPlaneMachine(machine: Readonly<KubeObject>): boolean {
  return machine.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined;
}

/** The group of an owner reference, or the node-reuse error `unparsable` (N-5). */
function parsedGroupOf(ref: OwnerReference, unparsable: string): string {
  const group = apiGroupOf(ref.apiVersion);
  if (group === undefined) throw new NodeReuseNameError(unparsable);
  return group;
}

/** N-3: the first owner in the control-plane API group (any kind). */
export function controlPlaneOwner(machine: Readonly<Machine>): OwnerReference {
  const owners = machine.metadata.ownerReferences ?? [];
  if (owners.length === 0) throw new NodeReuseNameError('Machine owner reference is not populated');
  for (const ref of owners) {
    if (parsedGroupOf(ref, 'Failed to parse the group and version') === CONTROL_PLANE_GROUP) return ref;
  }
  throw new NodeReuseNameError('ControlPlane name is not found');
}

/** N-3: `cp-` + the control plane's name. */
export function controlPlaneReuseName(machine: Readonly<Machine>): string {
  return nodeReuseLabelValue({ controlPlane: controlPlaneOwner(machine).name });
}

/**
 * N-4: the MachineSet owning the machine (same name **and** UID as a Cluster API MachineSet owner
 * reference), then that MachineSet's Cluster API MachineDeployment owner.
 */
export function machineDeploymentOwner(machine: Readonly<Machine>, machineSets: readonly Readonly<MachineSet>[]): OwnerReference {
  if (isControlPlaneMachine(machine)) throw new NodeReuseNameError('Machine is controlplane, MachineSet can not be associated with it');
  const owners = machine.metadata.ownerReferences ?? [];
  if (owners.length === 0) throw new NodeReuseNameError('Machine owner reference is not populated');
  const setRefs = owners.filter((ref) => ref.kind === 'MachineSet');
  for (const ref of setRefs) parsedGroupOf(ref, 'Failed to parse ownerRef Group of Machine');
  const machineSet = machineSets.find((set) =>
    setRefs.some((ref) => apiGroupOf(ref.apiVersion) === CLUSTER_API_GROUP && ref.uid === set.metadata.uid && ref.name === set.metadata.name)
  );
  if (!machineSet) {
    throw new NodeReuseNameError(`no MachineSet in ${machine.metadata.namespace ?? ''} matches the owner references of Machine ${machine.metadata.name ?? ''}`);
  }
  const setOwners = machineSet.metadata.ownerReferences ?? [];
  if (setOwners.length === 0) throw new NodeReuseNameError('Machineset owner reference is not populated');
  for (const ref of setOwners) {
    if (ref.kind !== 'MachineDeployment') continue;
    if (parsedGroupOf(ref, 'Failed to parse the group and version') === CLUSTER_API_GROUP) return ref;
  }
  throw new NodeReuseNameError('MachineDeployment name is not found');
}

/** N-4: `md-` + the MachineDeployment's name. */
export function machineDeploymentReuseName(machine: Readonly<Machine>, machineSets: readonly Readonly<MachineSet>[]): string {
  return nodeReuseLabelValue({ machineDeployment: machineDeploymentOwner(machine, machineSets).name });
}

/**
 * The owner a machine's reuse name comes from (N-3, N-4), whose current template also decides
 * whether its released host is reserved (B2-15): its control plane, or its MachineDeployment.
 */
export function reuseOwner(machine: Readonly<Machine>, machineSets: readonly Readonly<MachineSet>[]): OwnerReference {
  return isControlPlaneMachine(machine) ? controlPlaneOwner(machine) : machineDeploymentOwner(machine, machineSets);
}

/** The reuse name of any machine (N-3 for control-plane machines, N-4 otherwise). */
export function nodeReuseName(machine: Readonly<Machine>, machineSets: readonly Readonly<MachineSet>[]): string {
  return isControlPlaneMachine(machine) ? controlPlaneReuseName(machine) : machineDeploymentReuseName(machine, machineSets);
}
