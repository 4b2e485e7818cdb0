// The Metal3DataClaim controller's process: the common manager flags (research §8: --watch-filter,
// --namespace, --leader-elect…, --kube-api-qps/burst, probes, metrics) plus upstream's
// --metal3datatemplate-concurrency (CAPM3 allocates claims in its Metal3DataTemplate controller),
// then the controller on the shared harness. main.ts runs it alone; the all-in-one process runs it
// beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { Metal3DataClaimResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { dataClaimController } from './controller.ts';
import { CONTROLLER_NAME } from './names.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3DataClaim. */
export const MIGRATED_KINDS = [Metal3DataClaimResource] as const;

export const dataClaimEntry = controllerEntry({
  name: 'metal3-ts-dataclaim',
  flags: {
    'metal3datatemplate-concurrency': flag.int(0, 'Metal3DataClaims reconciled in parallel (0: use --concurrency)', { min: 0 }),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, config, flags } = deps;
    const concurrency = flags['metal3datatemplate-concurrency'] || config.concurrency;
    manager.add(dataClaimController({ ...deps, config: { watchFilter: config.watchFilter, concurrency } }));
    manager.add(storageMigrationController(CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
