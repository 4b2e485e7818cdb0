// The Metal3Remediation controller's process: the common manager flags (research §8) plus upstream's
// --metal3remediation-concurrency, the out-of-service-taint mode (off by default, docs/compatibility.md)
// and the workload-cluster client budget, then the controller on the
// shared harness. main.ts runs it alone; the all-in-one process runs it beside the others.
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { Metal3RemediationResource, Metal3RemediationTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta2';
import { controllerEntry } from '@metal3-ts/shared/entry/entry';
import { flag } from '@metal3-ts/shared/entry/flags';
import { storageMigrationController } from '@metal3-ts/shared/storage/controller';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { remediationController } from './controller.ts';
import { outOfServiceMode } from './out-of-service.ts';
import { CONTROLLER_NAME } from './names.ts';

/** The kinds whose objects this process rewrites when their CRD's storage version changes (S-11): Metal3Remediation and, since no controller writes it, Metal3RemediationTemplate. */
export const MIGRATED_KINDS = [Metal3RemediationResource, Metal3RemediationTemplateResource] as const;

export const remediationEntry = controllerEntry({
  name: 'metal3-ts-remediation',
  flags: {
    'metal3remediation-concurrency': flag.int(0, 'Metal3Remediations reconciled in parallel (0: use --concurrency)', { min: 0 }),
    'out-of-service-taint': flag.oneOf(
      ['false', 'true', 'auto'],
      'false',
      'Taint the Node out-of-service instead of deleting it while its host is off; auto: when the management apiserver is >= 1.28, as CAPM3',
    ),
    'clustercache-client-qps': flag.float(20, 'Requests per second to each workload cluster, per resource kind', { min: 0 }),
    'clustercache-client-burst': flag.int(30, 'Burst of requests to each workload cluster, per resource kind', { min: 0 }),
  },
  async register(deps) {
    // Before any informer: Cluster API's kinds are read at the version the apiserver serves (S-10).
    await readClusterApi(deps);
    const { manager, client, registry, log, clock, config, flags } = deps;
    const outOfService = await outOfServiceMode(flags['out-of-service-taint'], client);
    log.info('remediation mode', { outOfServiceTaint: outOfService });
    const clusterCache = new ClusterCache(client, { log, registry, clock, qps: flags['clustercache-client-qps'], burst: flags['clustercache-client-burst'] });
    manager.add(remediationController({
      ...deps,
      workloadClient: (cluster) => clusterCache.get(cluster),
      config: { concurrency: flags['metal3remediation-concurrency'] || config.concurrency, outOfService },
    }));
    manager.add(storageMigrationController(CONTROLLER_NAME, MIGRATED_KINDS, deps));
  },
});
