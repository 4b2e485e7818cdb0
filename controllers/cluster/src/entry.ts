// The Metal3Cluster controller's process: the common manager flags (research §8: --watch-filter,
// --namespace, --leader-elect…, --kube-api-qps/burst, probes, metrics) plus upstream's
// --metal3cluster-concurrency, then the controller on the shared harness. main.ts runs it alone;
// the all-in-one process runs it beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { metal3ClusterController } from './controller.ts';

export const clusterEntry = controllerEntry({
  name: 'metal3-ts-cluster',
  flags: {
    'metal3cluster-concurrency': flag.int(0, 'Metal3Clusters reconciled in parallel (0: use --concurrency)', { min: 0 }),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, config, flags } = deps;
    const concurrency = flags['metal3cluster-concurrency'] || config.concurrency;
    manager.add(
      metal3ClusterController({ ...deps, config: { watchFilter: config.watchFilter, concurrency } }),
    );
  },
});
