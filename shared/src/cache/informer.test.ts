import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { type ConfigMap, ConfigMapResource } from '@metal3-ts/generated/core/v1';
import { byLabel } from './indexers.ts';
import { SharedInformer } from './informer.ts';
import { keepEverything } from './transform.ts';
import { configMap, FakeListWatch, gone } from './testing/fake-list-watch.ts';
import type { CacheEvent } from './types.ts';

const test = suite('SharedInformer');

function setup() {
  const source = new FakeListWatch<ConfigMap>();
  const informer = new SharedInformer<ConfigMap>(source, ConfigMapResource, { backoff: { initialMs: 1, maxMs: 4 } });
  const aborter = new AbortController();
  let running: Promise<void> | undefined;
  return {
    source,
    informer,
    run: () => (running = informer.run(aborter.signal)),
    stop: async () => {
      aborter.abort();
      await running;
    },
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const describe = (events: CacheEvent<KubeObject>[]) => events.map((e) => `${e.type}:${e.object.metadata.name}`);
const cm = (name: string, data: Record<string, string> = {}) => configMap(name, data) as ConfigMap;

test('subscribers see the initial list and then changes in order; waitForSync resolves after the first list', async () => {
  const { source, informer, run, stop } = setup();
  source.create(cm('a'));
  const seen: CacheEvent<ConfigMap>[] = [];
  informer.subscribe((e) => seen.push(e));
  assert.is(informer.hasSynced(), false);
  run();
  await informer.waitForSync();
  assert.is(informer.hasSynced(), true);
  assert.equal(describe(seen), ['add:a']);
  source.create(cm('b'));
  source.update(cm('a', { k: 'v' }));
  source.remove('b');
  await until('three changes', () => seen.length === 4);
  assert.equal(describe(seen), ['add:a', 'add:b', 'update:a', 'delete:b']);
  const update = seen[2];
  assert.equal(update?.type === 'update' && update.old.data, {}, 'the update carries the previous object');
  assert.equal(informer.store.get({ namespace: 'ns', name: 'a' })?.data, { k: 'v' });
  assert.is(informer.store.size, 1);
  await stop();
});

test('a late subscriber first gets an add for every cached object, then live changes only', async () => {
  const { source, informer, run, stop } = setup();
  source.create(cm('a'));
  source.create(cm('b'));
  run();
  await informer.waitForSync();
  const seen: CacheEvent<ConfigMap>[] = [];
  const unsubscribe = informer.subscribe((e) => seen.push(e));
  assert.equal(describe(seen).sort(), ['add:a', 'add:b']);
  source.create(cm('c'));
  await until('the live add', () => seen.length === 3);
  unsubscribe();
  source.create(cm('d'));
  await until('the store', () => informer.store.size === 4);
  assert.is(seen.length, 3, 'no events after unsubscribing');
  await stop();
});

test('cached objects are deep-frozen: a reconciler cannot mutate the cache; timestamps stay strings', async () => {
  const { source, informer, run, stop } = setup();
  source.create({ ...cm('a', { k: 'v' }), metadata: { name: 'a', namespace: 'ns', creationTimestamp: '2026-01-02T03:04:05Z', labels: { x: 'y' } } });
  run();
  await informer.waitForSync();
  const cached = informer.store.get({ namespace: 'ns', name: 'a' });
  assert.ok(cached);
  assert.throws(() => ((cached as ConfigMap).data!['k'] = 'changed'), TypeError);
  assert.throws(() => ((cached as ConfigMap).metadata.labels!['x'] = 'z'), TypeError);
  assert.is(typeof cached.metadata.creationTimestamp, 'string');
  assert.is(informer.store.get({ namespace: 'ns', name: 'a' })?.data?.['k'], 'v');
  await stop();
});

test('an index added after start covers existing and later objects', async () => {
  const { source, informer, run, stop } = setup();
  source.create({ ...cm('a'), metadata: { name: 'a', namespace: 'ns', labels: { pool: 'blue' } } });
  run();
  await informer.waitForSync();
  informer.addIndex('pool', byLabel('pool'));
  source.create({ ...cm('b'), metadata: { name: 'b', namespace: 'ns', labels: { pool: 'blue' } } });
  await until('b', () => informer.store.size === 2);
  assert.equal(informer.store.byIndex('pool', 'blue').map((o) => o.metadata.name).sort(), ['a', 'b']);
  await stop();
});

test('after a 410 the relist synthesises deletes for objects removed while the watch was down', async () => {
  const { source, informer, run, stop } = setup();
  source.create(cm('keep'));
  source.create(cm('gone-1'));
  source.create(cm('gone-2'));
  const seen: CacheEvent<ConfigMap>[] = [];
  informer.subscribe((e) => seen.push(e));
  run();
  await informer.waitForSync();
  source.silent = true;
  source.remove('gone-1');
  source.remove('gone-2');
  source.update(cm('keep', { v: '2' }));
  source.compact();
  source.silent = false;
  source.breakWatches(gone());
  await until('the relist', () => seen.length === 6);
  assert.equal(describe(seen.slice(3)), ['delete:gone-1', 'delete:gone-2', 'update:keep']);
  assert.equal(informer.store.list().map((o) => o.metadata.name), ['keep']);
  assert.is(informer.hasSynced(), true);
  await stop();
});

test('read your own writes through the informer: the written copy is served, subscribers still get the watch event', async () => {
  const { source, informer, run, stop } = setup();
  source.create(cm('a', { v: '1' }));
  const seen: CacheEvent<ConfigMap>[] = [];
  informer.subscribe((e) => seen.push(e));
  run();
  await informer.waitForSync();
  source.silent = true; // the watch lags behind our write
  const written = source.update(cm('a', { v: '2' }));
  informer.noteWrite(written);
  assert.equal(informer.store.get({ namespace: 'ns', name: 'a' })?.data, { v: '2' });
  assert.equal(describe(seen), ['add:a'], 'noteWrite produces no event');
  source.silent = false;
  source.closeWatches(); // the resumed watch replays the write
  await until('the watch event', () => seen.length === 2);
  assert.equal(describe(seen), ['add:a', 'update:a']);
  assert.equal(informer.store.get({ namespace: 'ns', name: 'a' })?.data, { v: '2' });
  informer.noteDelete({ namespace: 'ns', name: 'a' });
  assert.is(informer.store.get({ namespace: 'ns', name: 'a' }), undefined);
  await stop();
});

test('a namespace-scoped informer ignores own writes outside its namespace', () => {
  const informer = new SharedInformer<ConfigMap>(new FakeListWatch<ConfigMap>(), ConfigMapResource, { namespace: 'ns' });
  informer.noteWrite({ ...cm('x'), metadata: { name: 'x', namespace: 'elsewhere', resourceVersion: '5' } });
  assert.is(informer.store.size, 0);
  informer.noteWrite({ ...cm('y'), metadata: { name: 'y', namespace: 'ns', resourceVersion: '5' } });
  assert.is(informer.store.size, 1);
});

test('a throwing subscriber does not stop the informer or other subscribers', async () => {
  const { source, informer, run, stop } = setup();
  const seen: string[] = [];
  informer.subscribe(() => {
    throw new Error('bad handler');
  });
  informer.subscribe((e) => seen.push(e.object.metadata.name ?? ''));
  run();
  await informer.waitForSync();
  source.create(cm('a'));
  await until('the add', () => seen.length === 1);
  await stop();
});

test('waitForSync rejects when its signal aborts first', async () => {
  const { informer } = setup();
  const aborter = new AbortController();
  const waiting = informer.waitForSync(aborter.signal);
  aborter.abort(new Error('shutdown'));
  try {
    await waiting;
    assert.unreachable('should reject');
  } catch (error) {
    assert.is((error as Error).message, 'shutdown');
  }
});

test('cached objects drop managedFields by default and keep them with keepEverything', async () => {
  const withFields = () => ({ ...cm('a'), metadata: { ...cm('a').metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] } }) as ConfigMap;
  const { source, informer, run, stop } = setup();
  source.create(withFields());
  run();
  await informer.waitForSync();
  assert.is(informer.store.get({ namespace: 'ns', name: 'a' })?.metadata.managedFields, undefined);
  await stop();

  const keepSource = new FakeListWatch<ConfigMap>();
  keepSource.create(withFields());
  const keeping = new SharedInformer<ConfigMap>(keepSource, ConfigMapResource, { transform: keepEverything });
  const ac = new AbortController();
  const running = keeping.run(ac.signal);
  await keeping.waitForSync();
  assert.equal(keeping.store.get({ namespace: 'ns', name: 'a' })?.metadata.managedFields, [{ manager: 'kubectl', operation: 'Update' }]);
  ac.abort();
  await running;
});

test.run();
