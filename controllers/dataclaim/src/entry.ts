// The Metal3DataClaim controller's process: the common manager flags (research §8: --watch-filter,
// --namespace, --leader-elect…, --kube-api-qps/burst, probes, metrics) plus upstream's
// --metal3datatemplate-concurrency (CAPM3 allocates claims in its Metal3DataTemplate controller),
// then the controller on the shared harness. main.ts runs it alone; the all-in-one process runs it
// beside the others.
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { dataClaimController } from './controller.ts';

export const dataClaimEntry = controllerEntry({
  name: 'metal3-ts-dataclaim',
  flags: {
    'metal3datatemplate-concurrency': flag.int(0, 'Metal3DataClaims reconciled in parallel (0: use --concurrency)', { min: 0 }),
  },
  register(deps) {
    const { manager, config, flags } = deps;
    const concurrency = flags['metal3datatemplate-concurrency'] || config.concurrency;
    manager.add(dataClaimController({ ...deps, config: { watchFilter: config.watchFilter, concurrency } }));
  },
});
