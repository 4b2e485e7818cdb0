// Wiring of the Metal3Machine controller (research M-1…M-7): what it reconciles, what else wakes it,
// which events count. Everything it decides lives in reconcile.ts and the modules it calls; tests
// build this controller in-process with their own client, informers and workload clients.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, MachineResource, MachineSetResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { SelectedInformerSource } from '@metal3-ts/shared/cache/types';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { NodeWaits } from '@metal3-ts/shared/workload/node-waits';
import { hostInventory } from '@metal3-ts/baremetal/inventory';
import type { RandomIndex } from '@metal3-ts/baremetal/selection';
import { nodeKeys } from './awaited-nodes.ts';
import type { WorkloadClient } from './deps.ts';
import {
  clusterToMetal3Machines,
  hostToMetal3Machines,
  MACHINE_BY_CLUSTER_INDEX,
  machineByCluster,
  machineToMetal3Machine,
  metal3ClusterToMetal3Machines,
  METAL3MACHINE_AWAITING_HOST_INDEX,
  metal3MachineAwaitingHost,
  ownerMetal3Machines,
} from './mappers.ts';
import { CONTROLLER_NAME } from './names.ts';
import { clusterPauseTransitions, hostChanged, machineChanged, metal3MachineChanged, metal3MachineEventFilter } from './predicates.ts';
import { hostProjection, machineProjection } from './projections.ts';
import { metal3MachineReconciler } from './reconcile.ts';

export { CONTROLLER_NAME };

export interface MachineControllerConfig {
  /** `--watch-filter`: only objects labelled `cluster.x-k8s.io/watch-filter=<value>` (§0.6). */
  readonly watchFilter?: string | undefined;
  /** Metal3Machines reconciled in parallel (`--metal3machine-concurrency`, default 10). Any value is safe here. */
  readonly concurrency?: number;
  /** Safety-net requeue behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
  /** First look again while a workload Node is awaited (default 1 s, doubling). */
  readonly nodePollMs?: number;
  /** CAPM3_FAST_TRACK. */
  readonly fastTrack?: string | undefined;
}

/** What the controller needs; `MainDeps` from runMain plus a workload client fits. */
export interface MachineControllerDeps extends ControllerDeps {
  readonly client: Client;
  /** Machines and hosts are cached as projections.ts makes them. */
  readonly informers: SelectedInformerSource;
  /** Clients for workload clusters (a ClusterCache's `get`). */
  readonly workloadClient: WorkloadClient;
  readonly now?: () => Date;
  readonly random?: RandomIndex;
  readonly config: MachineControllerConfig;
}

export function metal3MachineController(deps: MachineControllerDeps): Controller {
  const { informers, config } = deps;
  const metal3Machines = informers.informerFor(Metal3MachineResource);
  metal3Machines.addIndex(METAL3MACHINE_AWAITING_HOST_INDEX, metal3MachineAwaitingHost);
  const machines = informers.projectedInformerFor(MachineResource, machineProjection);
  machines.addIndex(MACHINE_BY_CLUSTER_INDEX, machineByCluster);
  const hosts = informers.projectedInformerFor(BareMetalHostResource, hostProjection);
  const nodes = new NodeWaits({ log: deps.log, nodeKeys });
  const reconcile = metal3MachineReconciler({
    client: deps.client,
    informers: {
      metal3Machines,
      machines,
      clusters: informers.informerFor(ClusterResource),
      metal3Clusters: informers.informerFor(Metal3ClusterResource),
      hosts,
      claims: informers.informerFor(Metal3DataClaimResource),
      datas: informers.informerFor(Metal3DataResource),
      templates: informers.informerFor(Metal3MachineTemplateResource),
      machineSets: informers.informerFor(MachineSetResource),
    },
    inventory: hostInventory(hosts),
    workloadClient: deps.workloadClient,
    events: deps.events,
    now: deps.now,
    random: deps.random,
    requeueAfterMs: config.requeueAfterMs,
    nodePollMs: config.nodePollMs,
    awaitedNodes: nodes,
    fastTrack: config.fastTrack,
  });
  return controllerFor(CONTROLLER_NAME, Metal3MachineResource, deps)
    .withEventFilter(metal3MachineEventFilter(config.watchFilter ?? ''))
    .withPredicates(metal3MachineChanged)
    .watches(machines, machineToMetal3Machine, { predicates: [machineChanged] })
    .watches(ClusterResource, clusterToMetal3Machines(machines.store), { predicates: [clusterPauseTransitions] })
    .watches(Metal3ClusterResource, metal3ClusterToMetal3Machines(machines.store))
    .watches(Metal3DataClaimResource, ownerMetal3Machines)
    .watches(Metal3DataResource, ownerMetal3Machines)
    .watchesEvents(hosts, hostToMetal3Machines(metal3Machines.store), { predicates: [hostChanged] })
    .watchesRawSource(nodes.source)
    .withOptions({ maxConcurrentReconciles: config.concurrency ?? 10 })
    .build(reconcile);
}
