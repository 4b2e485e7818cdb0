// The Metal3Data / Metal3DataTemplate controllers' process: the common manager flags (research §8:
// --watch-filter, --namespace, --leader-elect…, --kube-api-qps/burst, probes, metrics) plus
// upstream's --metal3data-concurrency, --metal3datatemplate-concurrency and
// --enableBMHNameBasedPreallocation; the IPAM kinds the apiserver serves are probed first (D-2/D-3).
// main.ts runs it alone; the all-in-one process runs it beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { dataControllers } from './controller.ts';
import { probeIpamKinds } from './ipam-kinds.ts';
import { DATA_CONTROLLER_NAME } from './names.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3Data and Metal3DataTemplate. */
export const MIGRATED_KINDS = [Metal3DataResource, Metal3DataTemplateResource] as const;

export const dataEntry = controllerEntry({
  name: 'metal3-ts-data',
  flags: {
    'metal3data-concurrency': flag.int(0, 'Metal3Data reconciled in parallel (0: use --concurrency)', { min: 0 }),
    'metal3datatemplate-concurrency': flag.int(0, 'Metal3DataTemplates reconciled in parallel (0: use --concurrency)', { min: 0 }),
    enableBMHNameBasedPreallocation: flag.bool(false, 'Name Metal3 IPClaims <BareMetalHost>-<pool> so IPPool preAllocations can follow the host'),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, client, log, config, flags } = deps;
    const ipam = await probeIpamKinds(client, config.namespace);
    log.info('IPAM kinds served', { ...ipam });
    const controllers = dataControllers({
      ...deps,
      config: {
        watchFilter: config.watchFilter,
        dataConcurrency: flags['metal3data-concurrency'] || config.concurrency,
        templateConcurrency: flags['metal3datatemplate-concurrency'] || config.concurrency,
        preallocation: flags.enableBMHNameBasedPreallocation,
        ipam,
      },
    });
    for (const controller of controllers) manager.add(controller);
    manager.add(storageMigrationController(DATA_CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
