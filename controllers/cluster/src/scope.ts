// The scope of one Metal3Cluster reconcile, read once from the informers (never a live GET: the
// informers serve our own writes, and every object is cached anyway for the watches, the machines
// as their metadata):
// the object, its owner Cluster, the guard's decision, and the machines of its Cluster when it is
// being deleted. The phases then share the scope: they may replace the working copy `m3c` with what
// a write of theirs returned (metadata and spec only, never its status) and record what they found
// in `observed`, which deriveStatus turns into the status. Nothing else of the scope is theirs.
import type { Api } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { MetadataOf } from '@metal3-ts/shared/cache/transform';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { type Guard, guard, ownerClusterRef } from './guards.ts';
import { MEMBER_BY_CLUSTER_INDEX } from './mappers.ts';
import type { ClusterMachines } from './decisions/delete.ts';
import type { LiveGuard } from './decisions/outcome.ts';
import type { Observations } from './observations.ts';

export interface ClusterInformers {
  readonly metal3Clusters: Informer<Metal3Cluster>;
  readonly clusters: Informer<Cluster>;
  readonly machines: Informer<MetadataOf<Machine>>;
  readonly metal3Machines: Informer<MetadataOf<Metal3Machine>>;
}

export interface ClusterScope {
  /** `Metal3Cluster namespace/name`: the object a StepError names. */
  readonly object: string;
  /** The cached object: frozen; the phases work on `m3c`. */
  readonly cached: Readonly<Metal3Cluster>;
  /** The owner Cluster, when the object has an ownerReference to one and it exists. */
  readonly cluster: Readonly<Cluster> | undefined;
  readonly decision: Guard;
  /** C-11: the machines of the Cluster (read only for a deletion). */
  readonly machines: ClusterMachines;
  readonly api: Api<Metal3Cluster>;
  readonly log: Logger;
  /** Read once for status.lastUpdated. */
  readonly now: Date;
  /** The working copy; a write's answer replaces it, and the final patch is computed against it. */
  m3c: Metal3Cluster;
  readonly observed: Observations;
}

const NO_MACHINES: ClusterMachines = { machines: [], metal3Machines: [] };

/** The scope of `request`, or undefined when the Metal3Cluster does not exist (C-4). */
export function readScope(informers: ClusterInformers, request: Request, api: Api<Metal3Cluster>, log: Logger, now: Date): ClusterScope | undefined {
  const cached = informers.metal3Clusters.store.get(request);
  if (!cached) return undefined;
  const owner = ownerClusterRef(cached);
  // Owner references never cross namespaces.
  const cluster = owner ? informers.clusters.store.get({ namespace: cached.metadata.namespace, name: owner.name }) : undefined;
  const decision = guard(cached, cluster);
  const machines = decision.kind === 'Delete' ? machinesOfCluster(informers, cached.metadata.namespace, decision.clusterName) : NO_MACHINES;
  const object = `Metal3Cluster ${cached.metadata.namespace ?? ''}/${cached.metadata.name ?? ''}`;
  return { object, cached, cluster, decision, machines, api, log, now, m3c: structuredClone(cached) as Metal3Cluster, observed: {} };
}

/** The Machines and Metal3Machines labelled with `clusterName` in the object's namespace (C-11). */
function machinesOfCluster(informers: ClusterInformers, namespace: string | undefined, clusterName: string | undefined): ClusterMachines {
  if (!clusterName) return NO_MACHINES;
  const key = `${namespace ?? ''}/${clusterName}`;
  return {
    machines: informers.machines.store.byIndex(MEMBER_BY_CLUSTER_INDEX, key),
    metal3Machines: informers.metal3Machines.store.byIndex(MEMBER_BY_CLUSTER_INDEX, key),
  };
}

/** The decision of a pass over a live object (the outcome phase runs only on those). */
export function liveDecision(scope: Pick<ClusterScope, 'decision'>): LiveGuard {
  const { decision } = scope;
  if (decision.kind === 'Delete' || decision.kind === 'ExternallyManaged' || decision.kind === 'NotOurs') {
    throw new Error(`a live-object phase ran on a ${decision.kind} decision`);
  }
  return decision;
}
