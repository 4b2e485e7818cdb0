// No-op reconciles per second through the whole stack: a shared informer over the real apiserver,
// the work queue, a controller with 10 workers, and a reconcile that does what every real one does
// on a settled object (read from the cache, snapshot, patch on exit) and finds nothing to write.
import type { Client } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import type { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { Row } from './report.ts';

export async function benchNoopReconcile(client: Client, counter: RequestCounter, namespace: string, rounds: number): Promise<Row[]> {
  const registry = new Registry();
  const informers = new InformerFactory(client, { namespace, registry });
  const hosts = informers.informerFor(BareMetalHostResource);
  let reconciles = 0;
  const controller = controllerFor('bench-noop', BareMetalHostResource, { informers, registry })
    .withOptions({ maxConcurrentReconciles: 10 })
    .build(async (request) => {
      const cached = hosts.store.get(request);
      if (cached) {
        const host = structuredClone(cached) as BareMetalHost;
        const helper = new PatchHelper(host, client.api(BareMetalHostResource, request.namespace));
        await helper.patch(host);
      }
      reconciles++;
      return {};
    });

  const ac = new AbortController();
  const running = Promise.all([informers.start(ac.signal), controller.start(ac.signal)]);
  await informers.waitForSync();
  const keys = hosts.store.list().map((h) => ({ namespace: h.metadata.namespace!, name: h.metadata.name! }));
  // Let the initial adds drain, then measure only the enqueued rounds.
  while (reconciles < keys.length) await new Promise((r) => setTimeout(r, 5));
  counter.reset();
  const start = reconciles;
  const t0 = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const key of keys) controller.enqueue(key);
    const target = start + (round + 1) * keys.length;
    while (reconciles < target) await new Promise((r) => setTimeout(r, 1));
  }
  const seconds = (performance.now() - t0) / 1000;
  const writes = counter.count() - counter.count({ verb: 'watch' });
  ac.abort();
  await running;
  return [
    {
      what: `no-op reconciles through the stack (${keys.length} hosts x ${rounds} rounds, 10 workers)`,
      ours: (rounds * keys.length) / seconds,
      unit: 'reconciles/s',
      better: 'higher',
    },
    { what: 'API requests sent by those no-op reconciles', ours: writes, unit: 'requests', reference: { label: 'expected', value: 0 }, better: 'lower' },
  ];
}
