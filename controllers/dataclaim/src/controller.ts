// Wiring of the Metal3DataClaim controller: claims, woken by their templates, their templates'
// Clusters and their Metal3Data (research DT-1, DT-2, DT-3), all behind the pause and watch-filter
// event filter of §0.6 (CAPM3 gives its Metal3DataTemplate controller, which allocates claims there,
// the `--watch-filter` value). Everything it decides lives in reconcile.ts and the pure modules it
// calls; tests build this controller in-process with their own client and informers.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3DataClaimResource, Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { clusterUnpaused, resourceNotPausedAndHasFilterLabel } from '@metal3-ts/shared/controller/predicates';
import { TemplateLedgerWriter } from './ledger-writer.ts';
import {
  claimChanged,
  CLAIMS_BY_TEMPLATE_INDEX,
  claimsByTemplate,
  clusterToClaims,
  DATA_BY_CLAIM_INDEX,
  DATA_BY_TEMPLATE_INDEX,
  DATA_BY_TEMPLATE_REFERENCE_INDEX,
  dataByClaim,
  dataByTemplate,
  dataByTemplateReference,
  dataDeleted,
  dataToClaim,
  templateChanged,
  TEMPLATES_BY_CLUSTER_INDEX,
  templatesByCluster,
  templateToClaims,
} from './mappers.ts';
import { CONTROLLER_NAME } from './names.ts';
import { dataClaimReconciler } from './reconcile.ts';
import { IndexReservations } from './reservations.ts';

export interface DataClaimControllerConfig {
  /** `--watch-filter`: only objects labelled `cluster.x-k8s.io/watch-filter=<value>` (§0.6). */
  readonly watchFilter?: string | undefined;
  /** Claims reconciled in parallel (CAPM3's `--metal3datatemplate-concurrency`, default 10). */
  readonly concurrency?: number;
}

/** What the controller needs; `MainDeps` from runMain fits. */
export interface DataClaimControllerDeps extends ControllerDeps {
  /** Preferably a WriteThroughClient over `informers`, so reconciles read their own writes. */
  readonly client: Client;
  /** Wall clock for the template's `status.lastUpdated`. */
  readonly now?: () => Date;
  readonly config: DataClaimControllerConfig;
}

export function dataClaimController(deps: DataClaimControllerDeps): Controller {
  const { client, informers, registry, config } = deps;
  const claims = informers.informerFor(Metal3DataClaimResource);
  claims.addIndex(CLAIMS_BY_TEMPLATE_INDEX, claimsByTemplate);
  const datas = informers.informerFor(Metal3DataResource);
  datas.addIndex(DATA_BY_CLAIM_INDEX, dataByClaim);
  datas.addIndex(DATA_BY_TEMPLATE_INDEX, dataByTemplate);
  datas.addIndex(DATA_BY_TEMPLATE_REFERENCE_INDEX, dataByTemplateReference);
  const templates = informers.informerFor(Metal3DataTemplateResource);
  templates.addIndex(TEMPLATES_BY_CLUSTER_INDEX, templatesByCluster);
  const clusters = informers.informerFor(ClusterResource);

  const conflicts = registry?.counter(
    'metal3_dataclaim_index_conflicts_total',
    'Metal3Data creates lost to another claim (AlreadyExists) and retried at once with the next free index.',
    ['template'],
  );
  const reconcile = dataClaimReconciler({
    client,
    informers: { claims, datas, templates, clusters },
    ledger: new TemplateLedgerWriter(client, deps.now),
    reservations: new IndexReservations(),
    events: deps.events,
    conflicts,
  });
  return controllerFor(CONTROLLER_NAME, Metal3DataClaimResource, deps)
    .withEventFilter(resourceNotPausedAndHasFilterLabel(config.watchFilter ?? ''))
    .withPredicates(claimChanged)
    .watches(Metal3DataTemplateResource, templateToClaims(claims.store), { predicates: [templateChanged] })
    .watches(ClusterResource, clusterToClaims(templates.store, claims.store), { predicates: [clusterUnpaused] })
    .watches(Metal3DataResource, dataToClaim, { predicates: [dataDeleted] })
    .withOptions({ maxConcurrentReconciles: config.concurrency ?? 10 })
    .build(reconcile);
}
