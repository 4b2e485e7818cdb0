// What one reconcile of a Metal3Cluster reads: the object and its owner Cluster from the informers
// (never a live GET: the informers serve our own writes, and every object is cluster-wide cached
// anyway for the watches), and the machines of its Cluster when it is being deleted.
import type { Api } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { ownerClusterRef } from './guards.ts';
import { MEMBER_BY_CLUSTER_INDEX } from './mappers.ts';
import type { ClusterMachines } from './decisions/delete.ts';

export interface ClusterInformers {
  readonly metal3Clusters: Informer<Metal3Cluster>;
  readonly clusters: Informer<Cluster>;
  readonly machines: Informer<Machine>;
  readonly metal3Machines: Informer<Metal3Machine>;
}

export interface ClusterScope {
  /** The cached object: frozen; reconcile phases work on a copy. */
  readonly cached: Readonly<Metal3Cluster>;
  /** The owner Cluster, when the object has an ownerReference to one and it exists. */
  readonly cluster: Readonly<Cluster> | undefined;
  readonly api: Api<Metal3Cluster>;
  readonly log: Logger;
}

/** The scope of `request`, or undefined when the Metal3Cluster does not exist (C-4). */
export function readScope(informers: ClusterInformers, request: Request, api: Api<Metal3Cluster>, log: Logger): ClusterScope | undefined {
  const cached = informers.metal3Clusters.store.get(request);
  if (!cached) return undefined;
  const owner = ownerClusterRef(cached);
  // Owner references never cross namespaces.
  const cluster = owner ? informers.clusters.store.get({ namespace: cached.metadata.namespace, name: owner.name }) : undefined;
  return { cached, cluster, api, log };
}

/** The Machines and Metal3Machines labelled with `clusterName` in the object's namespace (C-11). */
export function machinesOfCluster(informers: ClusterInformers, namespace: string | undefined, clusterName: string | undefined): ClusterMachines {
  if (!clusterName) return { machines: [], metal3Machines: [] };
  const key = `${namespace ?? ''}/${clusterName}`;
  return {
    machines: informers.machines.store.byIndex(MEMBER_BY_CLUSTER_INDEX, key),
    metal3Machines: informers.metal3Machines.store.byIndex(MEMBER_BY_CLUSTER_INDEX, key),
  };
}
