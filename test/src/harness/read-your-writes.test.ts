// Read your own writes on the real apiserver: a reconcile that writes and runs again at once reads
// what it wrote, never the older copy the watch has not replaced yet. To make "the watch has not
// caught up" certain rather than a matter of timing, the informer watches through a proxy whose
// watches are stalled after the initial sync; writes go straight to the apiserver.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { type ConfigMap, ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { ApiProxy, type Upstream } from './api-proxy.ts';

const test = suite('read your own writes on the real apiserver');
const env = withSharedEnv(test);

const STEPS = 30;

/**
 * A counting controller: each reconcile reads `data.n` from the cache, writes n+1 through `writer`
 * and enqueues itself again at once. Runs until it reads STEPS or `budgetMs` passes; returns what
 * each reconcile read.
 */
async function countTo(namespace: string, writerFor: (informers: InformerFactory, direct: Client) => Client, budgetMs: number): Promise<number[]> {
  const direct = new Client(Transport.fromConnection(env().admin));
  await direct.api(ConfigMapResource, namespace).create(newConfigMap({ metadata: { name: 'counter' }, data: { n: '0' } }));
  const proxy = await ApiProxy.start(env().admin as Upstream);
  const informers = new InformerFactory(new Client(Transport.fromConnection({ server: proxy.url })), { namespace });
  const configMaps = informers.informerFor(ConfigMapResource);
  const writer = writerFor(informers, direct);
  const seen: number[] = [];
  // No reconcile runs before the watch is stalled: otherwise the first steps could race the stall
  // and be served by the watch, which is not what either test is about.
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const controller = controllerFor('counter', ConfigMapResource, { informers }).build(async (request) => {
    await gate;
    const cached = configMaps.store.get(request);
    if (!cached) return {};
    const n = Number(cached.data?.['n'] ?? 0);
    seen.push(n);
    if (n >= STEPS) return {};
    const cm = structuredClone(cached) as ConfigMap;
    const helper = new PatchHelper(cm, writer.api(ConfigMapResource, namespace));
    cm.data = { ...cm.data, n: String(n + 1) };
    await helper.patch(cm);
    controller.enqueue(request);
    return {};
  });
  const ac = new AbortController();
  const running = Promise.all([informers.start(ac.signal), controller.start(ac.signal)]);
  await informers.waitForSync();
  while (proxy.openWatches === 0) await new Promise((r) => setTimeout(r, 5));
  proxy.stallWatches();
  openGate();
  const deadline = Date.now() + budgetMs;
  while (!seen.includes(STEPS) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  ac.abort();
  await running;
  await proxy.close();
  direct.transport.close();
  return seen;
}

test("with the write-through client, every reconcile reads the previous one's write although the watch is stalled", async () => {
  const namespace = await freshNamespace(env().admin.client, 'ryow');
  const seen = await countTo(namespace, (informers, direct) => new WriteThroughClient(direct.transport, informers), 20_000);
  // Once n reaches STEPS nothing is written, so further reconciles may read STEPS again; before that,
  // reading a value twice would mean a stale read.
  const counting = seen.filter((n) => n < STEPS);
  assert.equal(counting, Array.from({ length: STEPS }, (_, i) => i), `reconciles read ${seen.slice(0, 40).join(',')}`);
  assert.is(seen.at(-1), STEPS);
  const final = await env().admin.client.get<ConfigMap>(`/api/v1/namespaces/${namespace}/configmaps/counter`);
  assert.is(final.data?.['n'], String(STEPS));
});

test('control: with a plain client the same controller keeps reading the stale copy', async () => {
  const namespace = await freshNamespace(env().admin.client, 'ryow-control');
  const seen = await countTo(namespace, (_informers, direct) => direct, 1_000);
  assert.ok(seen.length > 2, `reconciled ${seen.length} times`);
  assert.ok(new Set(seen).size < seen.length, `some reconcile read a value it had already written past (read ${seen.slice(0, 10).join(',')}…)`);
  assert.ok(Math.max(...seen) < STEPS, 'the stale reads kept it from counting to the end');
});

test('a delete through the write-through client hides the object from the cache at once; a dry run never reaches it', async () => {
  const client = new Client(Transport.fromConnection(env().admin));
  const namespace = await freshNamespace(env().admin.client, 'ryow-del');
  const informers = new InformerFactory(client, { namespace });
  const configMaps = informers.informerFor(ConfigMapResource);
  const writer = new WriteThroughClient(client.transport, informers);
  const ac = new AbortController();
  const running = informers.start(ac.signal);
  await informers.waitForSync();
  await writer.api(ConfigMapResource, namespace).create(newConfigMap({ metadata: { name: 'doomed' } }));
  assert.ok(configMaps.store.get({ namespace, name: 'doomed' }), 'the create is readable before its watch event');
  await writer.api(ConfigMapResource, namespace).delete('doomed');
  assert.is(configMaps.store.get({ namespace, name: 'doomed' }), undefined, 'the delete is visible before its watch event');
  const dry = await writer.api(ConfigMapResource, namespace).create(newConfigMap({ metadata: { name: 'dry' } }), { dryRun: true });
  assert.is(dry.metadata.name, 'dry');
  assert.is(configMaps.store.get({ namespace, name: 'dry' }), undefined, 'a dry run does not reach the cache');
  ac.abort();
  await running;
  client.transport.close();
});

test.run();
