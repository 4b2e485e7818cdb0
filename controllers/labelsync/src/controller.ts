// Wiring of the label-sync controller: BareMetalHosts (primary), woken by every link of their chain
// (mappers.ts) and by their Nodes' labels changing in the workload clusters (synced-nodes.ts), behind
// upstream's event filter (LS-1: events of objects carrying `cluster.x-k8s.io/paused` are dropped; no
// watch-filter label). Everything it decides lives in chain.ts and prefixes.ts; tests build this
// controller in-process with their own client, informers and workload clients.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { resourceNotPaused } from '@metal3-ts/shared/controller/predicates';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import type { NodeWatchesOptions } from '@metal3-ts/shared/workload/node-watch';
import {
  clusterChanged,
  clusterToHosts,
  hostChanged,
  hostsByConsumer,
  machineChanged,
  machinesByCluster,
  machineToHosts,
  metal3ClusterChanged,
  metal3ClusterToHosts,
  metal3MachineChanged,
  metal3MachineToHosts,
} from './mappers.ts';
import { CONTROLLER_NAME, HOSTS_BY_CONSUMER_INDEX, MACHINES_BY_CLUSTER_INDEX } from './names.ts';
import { labelSyncReconciler } from './reconcile.ts';
import { SyncedNodes } from './synced-nodes.ts';

export interface LabelSyncControllerConfig {
  /** Hosts reconciled in parallel (CAPM3's `--metal3labelsync-concurrency`, default 10). */
  readonly concurrency?: number;
  /** The workload Node watches' knobs (tests shorten the idle time and timeouts). */
  readonly nodeWatches?: Omit<NodeWatchesOptions, 'log'>;
}

/** What the controller needs; `MainDeps` from runMain fits, plus the workload clients. */
export interface LabelSyncControllerDeps extends ControllerDeps {
  readonly client: Client;
  /** A client for a workload cluster (a ClusterCache's `get`). */
  readonly workloadClient: (cluster: ClusterKey) => Promise<Client>;
  readonly config: LabelSyncControllerConfig;
}

export function labelSyncController(deps: LabelSyncControllerDeps): Controller {
  const { informers, config } = deps;
  const hosts = informers.informerFor(BareMetalHostResource);
  hosts.addIndex(HOSTS_BY_CONSUMER_INDEX, hostsByConsumer);
  const machines = informers.informerFor(MachineResource);
  machines.addIndex(MACHINES_BY_CLUSTER_INDEX, machinesByCluster);
  const stores = {
    hosts: hosts.store,
    machines: machines.store,
    metal3Machines: informers.informerFor(Metal3MachineResource).store,
    clusters: informers.informerFor(ClusterResource).store,
    metal3Clusters: informers.informerFor(Metal3ClusterResource).store,
  };
  const nodes = new SyncedNodes({ ...config.nodeWatches, log: deps.log });
  const reconcile = labelSyncReconciler({ stores, nodes, workloadClient: deps.workloadClient, events: deps.events });
  return controllerFor(CONTROLLER_NAME, BareMetalHostResource, deps)
    .withEventFilter(resourceNotPaused)
    .withPredicates(hostChanged)
    .watches(Metal3MachineResource, metal3MachineToHosts(stores), { predicates: [metal3MachineChanged] })
    .watches(MachineResource, machineToHosts(stores), { predicates: [machineChanged] })
    .watches(ClusterResource, clusterToHosts(stores), { predicates: [clusterChanged] })
    .watches(Metal3ClusterResource, metal3ClusterToHosts(stores), { predicates: [metal3ClusterChanged] })
    .watchesRawSource(nodes.source)
    .withOptions({ maxConcurrentReconciles: config.concurrency ?? 10 })
    .build(reconcile);
}
