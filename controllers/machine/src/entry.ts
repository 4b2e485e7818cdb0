// The Metal3Machine controller's process: the common manager flags (research §8) plus upstream's
// --metal3machine-concurrency and CAPM3_FAST_TRACK, the workload-cluster client cache, then the
// controller on the shared harness. main.ts runs it alone; the all-in-one process runs it beside
// the others.
import process from 'node:process';
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { metal3MachineController } from './controller.ts';
import { CONTROLLER_NAME } from './names.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3Machine. */
export const MIGRATED_KINDS = [Metal3MachineResource] as const;

export const machineEntry = controllerEntry({
  name: 'metal3-ts-machine',
  flags: {
    'metal3machine-concurrency': flag.int(0, 'Metal3Machines reconciled in parallel (0: use --concurrency); any value is safe', { min: 0 }),
    'clustercache-client-qps': flag.float(20, 'Requests per second to each workload cluster, per resource kind', { min: 0 }),
    'clustercache-client-burst': flag.int(30, 'Burst of requests to each workload cluster, per resource kind', { min: 0 }),
    'fast-track': flag.optionalString('Keep released hosts powered on ("true") or not ("false"); default: $CAPM3_FAST_TRACK, else "false"'),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, client, registry, log, clock, config, flags } = deps;
    const clusterCache = new ClusterCache(client, { log, registry, clock, qps: flags['clustercache-client-qps'], burst: flags['clustercache-client-burst'] });
    manager.add(
      metal3MachineController({
        ...deps,
        workloadClient: (cluster) => clusterCache.get(cluster),
        config: {
          watchFilter: config.watchFilter,
          concurrency: flags['metal3machine-concurrency'] || config.concurrency,
          fastTrack: flags['fast-track'] ?? (process.env['CAPM3_FAST_TRACK'] || 'false'),
        },
      }),
    );
    manager.add(storageMigrationController(CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
