// Points a process's informers at the Cluster API version the apiserver serves (version.ts): at
// v1beta2, the Cluster, Machine and MachineSet informers list and watch v1beta2 and cache each object
// projected into the v1beta1 shape the controllers read (projection.ts); at v1beta1 nothing changes.
// Once per process: the all-in-one process registers several controllers on one informer factory.
import type { Client } from '@metal3-ts/generated';
import * as v1beta1 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as v1beta2 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta2';
import type { InformerFactory } from '../cache/informer-factory.ts';
import type { Clock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import { CLUSTER_API_GROUP } from '../meta/cluster-api-names.ts';
import { clusterFromV1beta2, machineFromV1beta2, machineSetFromV1beta2 } from './projection.ts';
import { type ClusterApiVersion, discoverClusterApiVersion, type DiscoveryOptions } from './version.ts';

/** Discovers the version (once per process) and sets the informers' views; resolves with the version. */
export function readClusterApi(
  deps: { readonly client: Client; readonly informers: InformerFactory; readonly log: Logger; readonly clock: Clock },
  options: Omit<DiscoveryOptions, 'clock'> = {},
): Promise<ClusterApiVersion> {
  return deps.informers.decideOnce('cluster-api-version', async () => {
    const version = await discoverClusterApiVersion(deps.client.transport, { clock: deps.clock, ...options });
    if (version === 'v1beta2') {
      deps.informers.readAs({ shape: v1beta1.ClusterResource, served: v1beta2.ClusterResource, project: clusterFromV1beta2 });
      deps.informers.readAs({ shape: v1beta1.MachineResource, served: v1beta2.MachineResource, project: machineFromV1beta2 });
      deps.informers.readAs({ shape: v1beta1.MachineSetResource, served: v1beta2.MachineSetResource, project: machineSetFromV1beta2 });
    }
    deps.log.info('reading Cluster API objects', { group: CLUSTER_API_GROUP, version });
    return version;
  });
}
