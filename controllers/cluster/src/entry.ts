// The Metal3Cluster controller's process: the common manager flags (research §8: --watch-filter,
// --namespace, --leader-elect…, --kube-api-qps/burst, probes, metrics) plus upstream's
// --metal3cluster-concurrency, then the controller on the shared harness. main.ts runs it alone;
// the all-in-one process runs it beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { Metal3ClusterResource, Metal3ClusterTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { CONTROLLER_NAME, metal3ClusterController } from './controller.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3Cluster and, since no controller writes it, Metal3ClusterTemplate. */
export const MIGRATED_KINDS = [Metal3ClusterResource, Metal3ClusterTemplateResource] as const;

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
    manager.add(storageMigrationController(CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
