// Which Metal3Machines an event of another kind concerns (research M-2…M-7), plus one wake-up
// beyond upstream: a BareMetalHost that becomes selectable wakes the Metal3Machines of its namespace
// still waiting for a host, where upstream polls every 30 s (H-11). The 30 s poll stays as a safety
// net; the wake-up only makes association start as soon as a host is there.
import type { KubeObject, ObjectReference } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IndexFn, Store } from '@metal3-ts/shared/cache/types';
import { distinctRequests, type EventHandler, type MapFn } from '@metal3-ts/shared/controller/handlers';
import { hasPausedAnnotation as isPausedByAnnotation } from '@metal3-ts/shared/meta/paused';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { isSelectable } from '@metal3-ts/baremetal/inventory';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, HOST_ANNOTATION, INFRASTRUCTURE_GROUP } from './names.ts';
import type { CachedHost, CachedMachine } from './projections.ts';

/** Machines by `<namespace>/<cluster-name label>` (M-3, M-4). */
export const MACHINE_BY_CLUSTER_INDEX = 'metal3machine:machine-by-cluster';
/** Metal3Machines still waiting for a host, by `<namespace>`. */
export const METAL3MACHINE_AWAITING_HOST_INDEX = 'metal3machine:awaiting-host';

const METAL3_MACHINE_KIND = 'Metal3Machine';

export const machineByCluster: IndexFn<Machine> = (machine) => {
  const cluster = machine.metadata.labels?.[CLUSTER_NAME_LABEL];
  return cluster ? [`${machine.metadata.namespace ?? ''}/${cluster}`] : [];
};

/**
 * A Metal3Machine without a host (no or an empty `metal3.io/BareMetalHost` annotation, M-40), not
 * being deleted and not paused: one a newly selectable host may unblock.
 */
export const metal3MachineAwaitingHost: IndexFn<Metal3Machine> = (m3m) => {
  if (m3m.metadata.annotations?.[HOST_ANNOTATION] || m3m.metadata.deletionTimestamp || isPausedByAnnotation(m3m)) return [];
  // A terminal failure (seed 002) is not waiting for anything a host could bring.
  if (m3m.status?.failureReason || m3m.status?.failureMessage) return [];
  return [m3m.metadata.namespace ?? ''];
};

/** `ref` names a Metal3Machine: kind Metal3Machine, group infrastructure.cluster.x-k8s.io, any version. */
function namesMetal3Machine(ref: Readonly<Pick<ObjectReference, 'apiVersion' | 'kind'>>): boolean {
  return ref.kind === METAL3_MACHINE_KIND && apiGroupOf(ref.apiVersion ?? '') === INFRASTRUCTURE_GROUP;
}

/** M-2: a Machine maps to the Metal3Machine its infrastructureRef names, in the Machine's namespace. */
export const machineToMetal3Machine: MapFn<CachedMachine> = (machine) => {
  const ref = machine.spec?.infrastructureRef;
  if (!ref?.name || !namesMetal3Machine(ref)) return [];
  return [{ namespace: machine.metadata.namespace ?? '', name: ref.name }];
};

/**
 * M-3: the Machines labelled with the cluster, in its namespace, each to its infrastructureRef
 * name. As upstream, the kind and group of the reference are not checked: a Machine of another
 * provider yields a request for a Metal3Machine that does not exist, which reconciles to nothing.
 */
function machinesOfCluster(machines: Store<Machine>, namespace: string, cluster: string): Request[] {
  return machines
    .byIndex(MACHINE_BY_CLUSTER_INDEX, `${namespace}/${cluster}`)
    .flatMap((machine) => {
      const name = machine.spec?.infrastructureRef?.name;
      return name ? [{ namespace: machine.metadata.namespace ?? '', name }] : [];
    });
}

/** M-3: a Cluster wakes the Metal3Machines of its Machines (pause propagation, M-14/M-15). */
export function clusterToMetal3Machines(machines: Store<Machine>): MapFn<Cluster> {
  return (cluster) => (cluster.metadata.name ? machinesOfCluster(machines, cluster.metadata.namespace ?? '', cluster.metadata.name) : []);
}

/**
 * M-4: a Metal3Cluster wakes the Metal3Machines of its owner Cluster's Machines (first
 * ownerReference of kind Cluster and group cluster.x-k8s.io). The owner's name is enough: the
 * Cluster itself is not read, since the Machines carry its name in their label.
 */
export function metal3ClusterToMetal3Machines(machines: Store<Machine>): MapFn<Metal3Cluster> {
  return (m3c) => {
    const owner = m3c.metadata.ownerReferences?.find((ref) => ref.kind === 'Cluster' && apiGroupOf(ref.apiVersion) === CLUSTER_API_GROUP);
    return owner?.name ? machinesOfCluster(machines, m3c.metadata.namespace ?? '', owner.name) : [];
  };
}

/**
 * M-5, M-6: a Metal3DataClaim or Metal3Data wakes every Metal3Machine among its ownerReferences
 * (version and UID ignored; an unparsable apiVersion is skipped).
 */
export const ownerMetal3Machines: MapFn<KubeObject> = (obj) =>
  (obj.metadata.ownerReferences ?? [])
    .filter((ref) => ref.name && namesMetal3Machine(ref))
    .map((ref) => ({ namespace: obj.metadata.namespace ?? '', name: ref.name }));

/**
 * M-7: a host wakes the Metal3Machine in its consumerRef (before and after an update, so a consumer
 * that lost the host hears of it too). Beyond upstream: a host that is selectable after the event
 * (free, and available or reserved for node reuse) wakes every Metal3Machine of its namespace
 * waiting for a host. Only the new object counts for that: a claimed host (selectable only before)
 * wakes no waiting machine, which with N machines arriving together would cost N reconciles per claim.
 */
export function hostToMetal3Machines(awaiting: Store<Metal3Machine>): EventHandler<CachedHost> {
  const consumerOf = (host: Readonly<CachedHost>): Request[] => {
    const ref = host.spec?.consumerRef;
    return ref?.name && ref.namespace && namesMetal3Machine(ref) ? [{ namespace: ref.namespace, name: ref.name }] : [];
  };
  const waiting = (host: Readonly<CachedHost>): Request[] =>
    awaiting.byIndex(METAL3MACHINE_AWAITING_HOST_INDEX, host.metadata.namespace ?? '').map((m3m) => ({
      namespace: m3m.metadata.namespace ?? '',
      name: m3m.metadata.name ?? '',
    }));
  return (event) => {
    const consumers = event.type === 'update' ? [...consumerOf(event.old), ...consumerOf(event.object)] : consumerOf(event.object);
    const wakesWaiting = event.type !== 'delete' && isSelectable(event.object);
    return distinctRequests([...consumers, ...(wakesWaiting ? waiting(event.object) : [])]);
  };
}
