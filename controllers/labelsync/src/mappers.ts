// What wakes a host (research LS-1, made event driven): its own changes, and every link of its chain
// (chain.ts) that upstream finds by requeueing every 30 or 60 s: the consumer Metal3Machine appearing,
// its Machine getting a nodeRef, the Cluster or Metal3Cluster unpaused or given prefixes. Each map is
// a pure function over informer indexes; each predicate lets through only the changes the chain reads,
// so status churn (BMO's host status, CAPI's Machine conditions) wakes nothing.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { distinctRequests, type MapFn, requestFor } from '@metal3-ts/shared/controller/handlers';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { consumerOf } from './chain.ts';
import { CLUSTER_API_GROUP, HOSTS_BY_CONSUMER_INDEX, MACHINES_BY_CLUSTER_INDEX } from './names.ts';

const key = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Index: a host under its consumer Metal3Machine's `<ns>/<name>`. */
export const hostsByConsumer = (host: Readonly<BareMetalHost>): string[] => {
  const consumer = consumerOf(host);
  return consumer ? [key(consumer.namespace, consumer.name)] : [];
};

/** Index: a Machine under its Cluster's `<ns>/<name>`. */
export const machinesByCluster = (machine: Readonly<Machine>): string[] =>
  machine.spec?.clusterName ? [key(machine.metadata.namespace, machine.spec.clusterName)] : [];

export interface MapperStores {
  readonly hosts: Store<BareMetalHost>;
  readonly machines: Store<Machine>;
}

const hostsOfMetal3Machine = (stores: MapperStores, namespace: string | undefined, name: string): Request[] =>
  stores.hosts.byIndex(HOSTS_BY_CONSUMER_INDEX, key(namespace, name)).map(requestFor);

/** A Metal3Machine → the host it consumes. */
export const metal3MachineToHosts = (stores: MapperStores): MapFn<Metal3Machine> => (m3m) =>
  hostsOfMetal3Machine(stores, m3m.metadata.namespace, m3m.metadata.name ?? '');

/** A Machine → the host of its Metal3Machine (spec.infrastructureRef). */
export const machineToHosts = (stores: MapperStores): MapFn<Machine> => (machine) => {
  const ref = machine.spec?.infrastructureRef;
  return ref?.kind === 'Metal3Machine' && ref.name ? hostsOfMetal3Machine(stores, machine.metadata.namespace, ref.name) : [];
};

/** A Cluster → the hosts of its Machines. */
export const clusterToHosts = (stores: MapperStores): MapFn<Cluster> => (cluster) =>
  distinctRequests(stores.machines.byIndex(MACHINES_BY_CLUSTER_INDEX, key(cluster.metadata.namespace, cluster.metadata.name)).flatMap(machineToHosts(stores)));

/** LS-1: a Metal3Cluster → its owner Cluster (none: nothing) → the hosts of the Cluster's Machines. */
export const metal3ClusterToHosts = (stores: MapperStores): MapFn<Metal3Cluster> => (m3c) => {
  const owner = getOwnerByKind(m3c, CLUSTER_API_GROUP, 'Cluster');
  if (!owner) return [];
  const machines = stores.machines.byIndex(MACHINES_BY_CLUSTER_INDEX, key(m3c.metadata.namespace, owner.name));
  return distinctRequests(machines.flatMap(machineToHosts(stores)));
};

/** Host changes the chain reads: labels, annotations (pause), consumerRef. */
export const hostChanged: Predicate<BareMetalHost> = {
  update: (old, host) =>
    !same(old.metadata.labels, host.metadata.labels) || !same(old.metadata.annotations, host.metadata.annotations) ||
    !same(old.spec?.consumerRef, host.spec?.consumerRef),
};

/** A Metal3Machine's owner Machine is the link read. */
export const metal3MachineChanged: Predicate<Metal3Machine> = {
  update: (old, m3m) => !same(old.metadata.ownerReferences, m3m.metadata.ownerReferences),
  delete: () => false,
};

/** A Machine's nodeRef, Cluster and infrastructureRef are the links read. */
export const machineChanged: Predicate<Machine> = {
  update: (old, m) =>
    old.status?.nodeRef?.name !== m.status?.nodeRef?.name || old.spec?.clusterName !== m.spec?.clusterName ||
    !same(old.spec?.infrastructureRef, m.spec?.infrastructureRef),
  delete: () => false,
};

/** A Cluster's pause and its Metal3Cluster reference. */
export const clusterChanged: Predicate<Cluster> = {
  update: (old, c) => old.spec?.paused !== c.spec?.paused || !same(old.spec?.infrastructureRef, c.spec?.infrastructureRef),
  delete: () => false,
};

/** A Metal3Cluster's annotations (the prefixes, the pause) and its owner. */
export const metal3ClusterChanged: Predicate<Metal3Cluster> = {
  update: (old, m) => !same(old.metadata.annotations, m.metadata.annotations) || !same(old.metadata.ownerReferences, m.metadata.ownerReferences),
  delete: () => false,
};
