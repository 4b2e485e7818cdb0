// Which workload cluster a host's kubelet joins: the one of the machine consuming the host. Pure over
// lookups, so the chain is table-tested without informers.
//
// Chain: `spec.consumerRef` (a Metal3Machine) → the Metal3Machine's `cluster.x-k8s.io/cluster-name`
// label → else its owner Machine's `spec.clusterName` → else the host's own cluster-name label (CAPM3
// sets it when it claims the host, H-13). The Cluster lives in the Metal3Machine's namespace.
import type { KubeObject } from '@metal3-ts/generated';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';

export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
const CAPI_GROUP = 'cluster.x-k8s.io';

const groupOf = (apiVersion: string | undefined): string => {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
};

/** An event filter keeping objects of one namespace (all, when undefined). */
export function inNamespace(namespace: string | undefined): Predicate<KubeObject> {
  const test = (obj: Readonly<KubeObject>): boolean => namespace === undefined || obj.metadata.namespace === namespace;
  return { create: test, update: (_old, obj) => test(obj), delete: test };
}

export interface ConsumerLookup {
  metal3Machine(namespace: string, name: string): Readonly<Metal3Machine> | undefined;
  machine(namespace: string, name: string): Readonly<Machine> | undefined;
}

export type HostCluster =
  | {
    readonly found: true;
    readonly cluster: ClusterKey;
    readonly metal3Machine: Readonly<Metal3Machine>;
    readonly machine?: Readonly<Machine> | undefined;
  }
  | { readonly found: false; readonly reason: string };

/** The namespace/name of the Metal3Machine holding the host, if its consumer is one. */
export function consumerMetal3Machine(host: Readonly<BareMetalHost>): { namespace: string; name: string } | undefined {
  const ref = host.spec?.consumerRef;
  if (!ref?.name || ref.kind !== 'Metal3Machine' || groupOf(ref.apiVersion) !== INFRA_GROUP) return undefined;
  return { namespace: ref.namespace || host.metadata.namespace || '', name: ref.name };
}

export function clusterOfHost(host: Readonly<BareMetalHost>, lookup: ConsumerLookup): HostCluster {
  const consumer = consumerMetal3Machine(host);
  if (!consumer) return { found: false, reason: 'the host has no Metal3Machine consumer' };
  const metal3Machine = lookup.metal3Machine(consumer.namespace, consumer.name);
  if (!metal3Machine) return { found: false, reason: `Metal3Machine ${consumer.namespace}/${consumer.name} not found` };
  const ownerRef = metal3Machine.metadata.ownerReferences?.find((r) => r.kind === 'Machine' && groupOf(r.apiVersion) === CAPI_GROUP);
  const machine = ownerRef ? lookup.machine(consumer.namespace, ownerRef.name) : undefined;
  const name = metal3Machine.metadata.labels?.[CLUSTER_NAME_LABEL] || machine?.spec?.clusterName || host.metadata.labels?.[CLUSTER_NAME_LABEL];
  if (!name) return { found: false, reason: `Metal3Machine ${consumer.namespace}/${consumer.name} names no cluster (label, owner Machine or host label)` };
  return { found: true, cluster: { namespace: consumer.namespace, name }, metal3Machine, machine };
}
