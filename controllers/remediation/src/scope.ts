// What one reconcile reads (RS-4…RS-7, RS-11), once: the Metal3Remediation, its owner Machine, the
// Machine's Metal3Machine and the host named by the Metal3Machine's host annotation, from the
// informers; the Node only when the decision needs it, through the workload cluster's client.
// Missing links are errors with upstream's words (they reach the worker's backoff and the log).
import { type Client, isForbidden, isNotFound } from '@metal3-ts/generated';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import type { Metal3Machine, Metal3Remediation } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Store as ObjectStore } from '@metal3-ts/shared/cache/types';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL } from '@metal3-ts/shared/meta/cluster-api-names';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import { HOST_ANNOTATION } from './names.ts';

export interface RemediationStores {
  readonly remediations: ObjectStore<Metal3Remediation>;
  readonly machines: ObjectStore<Machine>;
  readonly metal3Machines: ObjectStore<Metal3Machine>;
  readonly hosts: ObjectStore<BareMetalHost>;
}

export interface Scope {
  readonly machine: Readonly<Machine>;
  readonly metal3Machine: Readonly<Metal3Machine>;
  readonly host: Readonly<BareMetalHost>;
}

/** RS-5…RS-7: the Machine, Metal3Machine and host of a remediation. */
export function readScope(stores: RemediationStores, r: Readonly<Metal3Remediation>): Scope {
  const ns = r.metadata.namespace!;
  const owner = getOwnerByKind(r, CLUSTER_API_GROUP, 'Machine');
  if (!owner) throw new Error("metal3Remediation's owner Machine not set");
  const machine = stores.machines.get({ namespace: ns, name: owner.name });
  if (!machine) throw new Error(`metal3Remediation's owner Machine could not be retrieved: Machine ${ns}/${owner.name} not found`);
  const m3mName = machine.spec?.infrastructureRef?.name ?? '';
  const metal3Machine = stores.metal3Machines.get({ namespace: ns, name: m3mName });
  if (!metal3Machine) throw new Error(`metal3machine not found: Metal3Machine ${ns}/${m3mName} not found`);
  const annotations = metal3Machine.metadata.annotations;
  const prefix = 'unable to find a host for unhealthy machine';
  if (!annotations) throw new Error(`${prefix}: unable to get ${m3mName} annotations`);
  const hostRef = annotations[HOST_ANNOTATION];
  if (!hostRef) throw new Error(`${prefix}: unable to get ${m3mName} HostAnnotation`);
  const hostName = hostRef.slice(hostRef.indexOf('/') + 1);
  const host = stores.hosts.get({ namespace: ns, name: hostName });
  if (!host) throw new Error(`${prefix}: BareMetalHost ${ns}/${hostName} not found`);
  return { machine, metal3Machine, host };
}

/** The Machine's workload cluster (its cluster-name label). */
export function clusterOf(machine: Readonly<Machine>): ClusterKey {
  const name = machine.metadata.labels?.[CLUSTER_NAME_LABEL];
  if (!name) throw new Error('error getting cluster client: machine is missing cluster label or cluster does not exist');
  return { namespace: machine.metadata.namespace!, name };
}

export type NodeRead = { readonly state: 'present'; readonly node: Readonly<Node> } | { readonly state: 'absent' | 'forbidden' };

/** RS-11: the Machine's Node; NotFound is absent, Forbidden is remembered as such. */
export async function readNode(workload: Client, machine: Readonly<Machine>): Promise<NodeRead> {
  const name = machine.status?.nodeRef?.name;
  if (!name) throw new Error("error getting node for remediation: metal3Remediation's node could not be retrieved, machine's nodeRef is nil");
  try {
    return { state: 'present', node: await workload.api(NodeResource).get(name) };
  } catch (error) {
    if (isNotFound(error)) return { state: 'absent' };
    if (isForbidden(error)) return { state: 'forbidden' };
    throw new Error(`error getting node for remediation: could not get cluster node: ${(error as Error).message}`, { cause: error });
  }
}
