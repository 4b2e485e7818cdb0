// A tiny controller that exercises the whole stack the way a real controller package's main.ts does
// (flags → client → informers → manager → controller → patch helper → events). It annotates every
// ConfigMap labelled `metal3-ts.dev/example=<value>` with `metal3-ts.dev/reconciled=<value>`.
// A ConfigMap annotated `metal3-ts.dev/delay-ms=<n>` makes its reconcile take n ms before writing,
// on purpose ignoring the shutdown signal: it stands for work that must finish (tests SIGTERM drain).
import { ConfigMapResource, type ConfigMap } from '@metal3-ts/generated/core/v1';
import { controllerFor } from '../../controller/builder.ts';
import { hasWatchFilterLabel, type Predicate } from '../../controller/predicates.ts';
import { realClock } from '../../clock/clock.ts';
import { PatchHelper } from '../../patch/patch-helper.ts';
import { runMain } from '../run-main.ts';

export const EXAMPLE_LABEL = 'metal3-ts.dev/example';
export const RECONCILED_ANNOTATION = 'metal3-ts.dev/reconciled';
export const DELAY_ANNOTATION = 'metal3-ts.dev/delay-ms';

const labelled = (obj: { metadata: { labels?: Record<string, string> } }) => obj.metadata.labels?.[EXAMPLE_LABEL] !== undefined;
const hasExampleLabel: Predicate = { create: labelled, update: (_old, obj) => labelled(obj), delete: labelled };

await runMain({
  name: 'example-controller',
  leaderElectionId: 'metal3-ts-example',
  register({ manager, informers, client, registry, log, config, events }) {
    const configMaps = informers.informerFor(ConfigMapResource);
    const controller = controllerFor('example-configmap', ConfigMapResource, { informers, registry, log })
      .withEventFilter(hasExampleLabel)
      .withEventFilter(hasWatchFilterLabel(config.watchFilter ?? ''))
      .withOptions({ maxConcurrentReconciles: config.concurrency })
      .build(async (request, ctx) => {
        const cached = configMaps.store.get(request);
        const want = cached?.metadata.labels?.[EXAMPLE_LABEL];
        if (!cached || want === undefined || cached.metadata.annotations?.[RECONCILED_ANNOTATION] === want) return {};
        const delayMs = Number(cached.metadata.annotations?.[DELAY_ANNOTATION] ?? 0);
        if (delayMs > 0) {
          ctx.log.info('slow reconcile started', { delayMs });
          await realClock.sleep(delayMs);
        }
        const cm = structuredClone(cached) as ConfigMap;
        // deps.client writes through to the informers: the next reconcile reads this write.
        const patch = new PatchHelper(cm, client.api(ConfigMapResource, request.namespace));
        cm.metadata.annotations = { ...cm.metadata.annotations, [RECONCILED_ANNOTATION]: want };
        await patch.patch(cm);
        events.normal(cm, 'Reconciled', `annotated ${RECONCILED_ANNOTATION}=${want}`);
        ctx.log.info('reconciled', { value: want });
        return {};
      });
    manager.add(controller);
  },
});
