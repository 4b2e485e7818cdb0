// The Machine a MachineSet creates (CAPI's computeDesiredMachine): the set's template spec with the
// set's clusterName, references to the infrastructure and bootstrap objects cloned for it, labels
// from the template plus `cluster.x-k8s.io/set-name` (and `cluster.x-k8s.io/deployment-name` when
// the set belongs to a MachineDeployment), the template's annotations, the set as controller owner
// and the Machine finalizer, which the Machine controller owns from then on.
import type { ObjectReference, OwnerReference } from '@metal3-ts/generated';
import { type Machine, type MachineSet, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { fnv1a32, safeEncode } from './machinedeployment-hash.ts';
import { MACHINE_DEPLOYMENT_NAME_LABEL, MACHINE_FINALIZER, MACHINE_SET_NAME_LABEL } from './machineset-constants.ts';

const MAX_LABEL_VALUE = 63;

/** A name as a label value: itself when it fits, else a hash of it (CAPI's format.MustFormatValue idea). */
export function labelValueFor(name: string): string {
  return name.length <= MAX_LABEL_VALUE ? name : `hash_${safeEncode(fnv1a32(name))}_z`;
}

/** The labels every Machine of this set carries (and its infrastructure and bootstrap clones). */
export function machineLabels(ms: Readonly<MachineSet>): Record<string, string> {
  const labels: Record<string, string> = { ...ms.spec?.template?.metadata?.labels };
  labels[MACHINE_SET_NAME_LABEL] = labelValueFor(ms.metadata.name ?? '');
  const deployment = ms.metadata.labels?.[MACHINE_DEPLOYMENT_NAME_LABEL];
  if (deployment !== undefined) labels[MACHINE_DEPLOYMENT_NAME_LABEL] = deployment;
  return labels;
}

export function machineAnnotations(ms: Readonly<MachineSet>): Record<string, string> {
  return { ...ms.spec?.template?.metadata?.annotations };
}

function ownerRef(owner: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }, controller: boolean): OwnerReference {
  const ref: OwnerReference = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '' };
  return controller ? { ...ref, controller: true, blockOwnerDeletion: true } : ref;
}

/** `controller: true` reference to `owner` (what a MachineSet puts on its Machines). */
export function controllerRef(owner: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }): OwnerReference {
  return ownerRef(owner, true);
}

/** Plain reference to `owner`: the on-create owner of cloned infrastructure and bootstrap objects. */
export function plainOwnerRef(owner: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }): OwnerReference {
  return ownerRef(owner, false);
}

export interface MachineRefs {
  readonly infrastructureRef: ObjectReference;
  /** Absent when the template names a ready-made bootstrap data secret instead of a config. */
  readonly bootstrapConfigRef?: ObjectReference;
}

export function machineForSet(ms: Readonly<MachineSet>, name: string, refs: MachineRefs): Machine {
  const template = structuredClone(ms.spec?.template?.spec);
  const bootstrap = refs.bootstrapConfigRef
    ? { configRef: refs.bootstrapConfigRef }
    : { ...(template?.bootstrap.dataSecretName ? { dataSecretName: template.bootstrap.dataSecretName } : {}) };
  return newMachine({
    metadata: {
      name,
      namespace: ms.metadata.namespace ?? '',
      labels: machineLabels(ms),
      annotations: machineAnnotations(ms),
      ownerReferences: [controllerRef(ms)],
      finalizers: [MACHINE_FINALIZER],
    },
    spec: {
      ...template,
      clusterName: ms.spec?.clusterName ?? '',
      infrastructureRef: refs.infrastructureRef,
      bootstrap,
    },
  });
}
