// One reconcile of a Metal3DataTemplate's life cycle (research DT-4…DT-8): read from the informers →
// guard → owner reference and finalizer (guarded JSON patches), or, when deleting, wait until no
// claim or Metal3Data uses the template and remove the finalizer. Nothing else of the template is
// written here: its status belongs to the allocation side.
import type { Client } from '@metal3-ts/generated';
import {
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
  Metal3DataTemplateResource,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { type ReconcileContext, type ReconcileFn, type Request, requestKey, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { DATA_BY_TEMPLATE_INDEX } from '../mappers.ts';
import { METAL3_DATA_TEMPLATE_FINALIZER, REQUEUE_AFTER_MS } from '../names.ts';
import { deletionBlockers, templateGuard } from './guards.ts';
import { CLAIM_BY_TEMPLATE_INDEX } from './mappers.ts';
import { ensureClusterOwnerReference } from './owner.ts';
import { endsQuietly } from '../quiet-exit.ts';

export interface TemplateInformers {
  readonly templates: Informer<Metal3DataTemplate>;
  readonly clusters: Informer<Cluster>;
  readonly claims: Informer<Metal3DataClaim>;
  readonly datas: Informer<Metal3Data>;
}

export interface TemplateReconcilerDeps {
  readonly client: Client;
  readonly informers: TemplateInformers;
  /** Safety-net wait of a deletion behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
}

export function metal3DataTemplateReconciler(deps: TemplateReconcilerDeps): ReconcileFn {
  const { client, informers } = deps;
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;

  return async (request: Request, ctx: ReconcileContext): Promise<Result> => {
    const cached = informers.templates.store.get(request);
    if (!cached) return {};
    const api = client.api(Metal3DataTemplateResource, request.namespace);
    const what = `Metal3DataTemplate ${requestKey(request)}`;
    const clusterName = cached.spec?.clusterName;
    const cluster = clusterName ? informers.clusters.store.get({ namespace: request.namespace, name: clusterName }) : undefined;
    const decision = templateGuard(cached, cluster);
    if (endsQuietly(decision, ctx.log)) return {};
    switch (decision.kind) {
      case 'Delete': {
        const key = `${request.namespace ?? ''}/${request.name}`;
        const blockers = deletionBlockers(
          cached,
          informers.claims.store.byIndex(CLAIM_BY_TEMPLATE_INDEX, key),
          informers.datas.store.byIndex(DATA_BY_TEMPLATE_INDEX, key),
        );
        if (blockers) {
          ctx.log.info(blockers);
          return { requeueAfterMs };
        }
        await runStep(
          what,
          'finalizer removal',
          () => removeFinalizerGuarded(api, structuredClone(cached) as Metal3DataTemplate, METAL3_DATA_TEMPLATE_FINALIZER),
        );
        return {};
      }
      case 'Reconcile': {
        const written = await runStep(what, 'owner reference', () => ensureClusterOwnerReference(api, cached, decision.cluster));
        await runStep(what, 'finalizer', () => ensureFinalizer(api, structuredClone(written ?? cached) as Metal3DataTemplate, METAL3_DATA_TEMPLATE_FINALIZER));
        return {};
      }
    }
  };
}
