// Wiring of the Metal3Cluster controller (research C-1…C-3): what it reconciles, what else wakes it,
// which events count. Everything it decides lives in reconcile.ts and the pure modules it calls;
// tests build this controller in-process with their own client and informers.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { metadataProjection } from '@metal3-ts/shared/cache/transform';
import type { SelectedInformerSource } from '@metal3-ts/shared/cache/types';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import {
  clusterToMetal3Cluster,
  MEMBER_BY_CLUSTER_INDEX,
  memberByCluster,
  memberToDeletingMetal3Clusters,
  METAL3_CLUSTER_BY_CLUSTER_INDEX,
  metal3ClusterByCluster,
} from './mappers.ts';
import { clusterPauseTransitions, metal3ClusterChanged, metal3ClusterEventFilter, onlyDeletes } from './predicates.ts';
import { metal3ClusterReconciler } from './reconcile.ts';

/** Controller name in metrics and logs. */
export const CONTROLLER_NAME = 'metal3cluster';

export interface ClusterControllerConfig {
  /** `--watch-filter`: only objects labelled `cluster.x-k8s.io/watch-filter=<value>` (§0.6). */
  readonly watchFilter?: string | undefined;
  /** Objects reconciled in parallel (`--metal3cluster-concurrency`, default 10 as upstream). */
  readonly concurrency?: number;
  /** Wait before looking again at a deletion or a missing owner Cluster (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
}

/** What the controller needs; `MainDeps` from runMain fits. */
export interface ClusterControllerDeps extends ControllerDeps {
  readonly informers: SelectedInformerSource;
  readonly client: Client;
  /** Wall clock for `status.lastUpdated`. */
  readonly now?: () => Date;
  readonly config: ClusterControllerConfig;
}

export function metal3ClusterController(deps: ClusterControllerDeps): Controller {
  const { client, informers, config } = deps;
  const metal3Clusters = informers.informerFor(Metal3ClusterResource);
  metal3Clusters.addIndex(METAL3_CLUSTER_BY_CLUSTER_INDEX, metal3ClusterByCluster);
  const clusters = informers.informerFor(ClusterResource);
  // Machines and Metal3Machines are only counted and seen deleted (C-11): their metadata is enough,
  // a fraction of the objects at a thousand machines.
  const machines = informers.projectedInformerFor(MachineResource, metadataProjection<Machine>());
  machines.addIndex(MEMBER_BY_CLUSTER_INDEX, memberByCluster);
  const metal3Machines = informers.projectedInformerFor(Metal3MachineResource, metadataProjection<Metal3Machine>());
  metal3Machines.addIndex(MEMBER_BY_CLUSTER_INDEX, memberByCluster);

  const reconcile = metal3ClusterReconciler({
    client,
    informers: { metal3Clusters, clusters, machines, metal3Machines },
    ...(deps.events ? { events: deps.events } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(config.requeueAfterMs !== undefined ? { requeueAfterMs: config.requeueAfterMs } : {}),
  });
  const toDeleting = memberToDeletingMetal3Clusters(metal3Clusters.store);
  return controllerFor(CONTROLLER_NAME, Metal3ClusterResource, deps)
    .withEventFilter(metal3ClusterEventFilter(config.watchFilter ?? ''))
    .withPredicates(metal3ClusterChanged)
    .watches(ClusterResource, clusterToMetal3Cluster(metal3Clusters.store), { predicates: [clusterPauseTransitions] })
    .watches(machines, toDeleting, { predicates: [onlyDeletes] })
    .watches(metal3Machines, toDeleting, { predicates: [onlyDeletes] })
    .withOptions({ maxConcurrentReconciles: config.concurrency ?? 10 })
    .build(reconcile);
}
