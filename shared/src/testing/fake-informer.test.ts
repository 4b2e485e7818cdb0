import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { CacheEvent } from '../cache/types.ts';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { FakeInformerSource } from './fake-informer.ts';

const test = suite('fake informer');
const host = (name: string, labels: Record<string, string> = {}) => newBareMetalHost({ metadata: { namespace: 'ns', name, labels }, spec: { online: false } });

test('one informer per kind; events reach subscribers; late subscribers get an add per stored object', () => {
  const source = new FakeInformerSource();
  const informer = source.informerFor(BareMetalHostResource);
  assert.is(source.informerFor(BareMetalHostResource), informer);
  const early: CacheEvent<BareMetalHost>[] = [];
  informer.subscribe((e) => early.push(e));
  informer.create(host('a'));
  informer.update({ ...host('a'), spec: { online: true } });
  informer.create(host('b'));
  informer.delete({ namespace: 'ns', name: 'b' });
  assert.equal(early.map((e) => `${e.type}:${e.object.metadata.name}`), ['add:a', 'update:a', 'add:b', 'delete:b']);
  const update = early[1]!;
  assert.is(update.type === 'update' && update.old.spec?.online, false);
  const late: string[] = [];
  const unsubscribe = informer.subscribe((e) => late.push(`${e.type}:${e.object.metadata.name}`));
  assert.equal(late, ['add:a']);
  unsubscribe();
  assert.is(informer.subscribers, 1);
});

test('stored objects are frozen copies with a resourceVersion and uid', () => {
  const informer = new FakeInformerSource().informerFor(BareMetalHostResource);
  const original = host('a');
  const stored = informer.create(original);
  assert.ok(stored.metadata.resourceVersion);
  assert.ok(stored.metadata.uid);
  assert.is(original.metadata.resourceVersion, undefined, "the caller's object is untouched");
  assert.throws(() => {
    (stored.spec as { online: boolean }).online = true;
  });
  assert.is(informer.store.get({ namespace: 'ns', name: 'a' }), stored);
});

test('indexes, namespaces and read-your-writes notes', () => {
  const informer = new FakeInformerSource().informerFor(BareMetalHostResource);
  informer.addIndex('pool', (h) => [h.metadata.labels?.pool ?? '']);
  informer.create(host('a', { pool: 'x' }));
  informer.create(host('b', { pool: 'y' }));
  assert.equal(informer.store.byIndex('pool', 'x').map((h) => h.metadata.name), ['a']);
  assert.throws(() => informer.store.byIndex('nope', 'x'), /no index/);
  assert.is(informer.store.list('other').length, 0);
  informer.noteWrite({ ...host('c') });
  informer.noteDelete({ namespace: 'ns', name: 'a' });
  assert.equal(informer.store.list('ns').map((h) => h.metadata.name).sort(), ['b', 'c']);
});

test('an unsynced informer makes waitForSync wait until markSynced, or reject on abort', async () => {
  const source = new FakeInformerSource({ synced: false });
  const informer = source.informerFor(BareMetalHostResource);
  assert.is(informer.hasSynced(), false);
  const ac = new AbortController();
  const aborted = informer.waitForSync(ac.signal);
  ac.abort(new Error('stop'));
  await aborted.then(
    () => assert.unreachable('must reject'),
    (e: Error) => assert.is(e.message, 'stop'),
  );
  const waiting = informer.waitForSync();
  informer.markSynced();
  await waiting;
  assert.is(informer.hasSynced(), true);
});

test.run();
