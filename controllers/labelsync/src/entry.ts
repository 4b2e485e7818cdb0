// The label-sync controller's process: the common manager flags (research §8) plus upstream's
// --metal3labelsync-concurrency and the workload clients' --clustercache-client-qps/burst, the
// workload-cluster client cache, then the controller on the shared harness. main.ts runs it alone;
// the all-in-one process runs it beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { labelSyncController } from './controller.ts';

export const labelSyncEntry = controllerEntry({
  name: 'metal3-ts-labelsync',
  flags: {
    'metal3labelsync-concurrency': flag.int(0, 'BareMetalHosts whose labels are synced in parallel (0: use --concurrency)', { min: 0 }),
    'clustercache-client-qps': flag.float(20, 'Requests per second to each workload cluster, per resource kind', { min: 0 }),
    'clustercache-client-burst': flag.int(30, 'Burst of requests to each workload cluster, per resource kind', { min: 0 }),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, client, registry, log, clock, config, flags } = deps;
    const clusterCache = new ClusterCache(client, { log, registry, clock, qps: flags['clustercache-client-qps'], burst: flags['clustercache-client-burst'] });
    manager.add(
      labelSyncController({
        ...deps,
        workloadClient: (cluster) => clusterCache.get(cluster),
        config: { concurrency: flags['metal3labelsync-concurrency'] || config.concurrency },
      }),
    );
  },
});
