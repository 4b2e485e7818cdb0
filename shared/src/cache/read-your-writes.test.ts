import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { deepFreeze } from './freeze.ts';
import { byLabel } from './indexers.ts';
import { ObjectStore } from './object-store.ts';
import { ReadYourWrites } from './read-your-writes.ts';
import { compareResourceVersions } from './resource-version.ts';

const test = suite('read your own writes');

type Labelled = KubeObject;
const obj = (name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): Labelled =>
  deepFreeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a', uid: `uid-${name}`, resourceVersion: rv, ...extra } });

function setup() {
  const store = new ObjectStore<Labelled>();
  const view = new ReadYourWrites(store);
  /** What the informer does for each watch event. */
  const watchApply = (o: Labelled) => {
    view.observe(store.apply(o));
    view.advance(o.metadata.resourceVersion);
  };
  const watchDelete = (o: Labelled) => {
    view.observe(store.delete(o));
    view.advance(o.metadata.resourceVersion);
  };
  return { store, view, watchApply, watchDelete };
}
const rvOf = (o: Labelled | undefined) => o?.metadata.resourceVersion;

test('resourceVersions compare as integers, and not at all when either does not parse', () => {
  assert.is(compareResourceVersions('9', '10'), -1);
  assert.is(compareResourceVersions('10', '10'), 0);
  assert.is(compareResourceVersions('123456789012345678901', '2'), 1);
  assert.is(compareResourceVersions('abc', '2'), undefined);
  assert.is(compareResourceVersions(undefined, '2'), undefined);
});

test('a written object is served until the watch delivers that resourceVersion', () => {
  const { view, watchApply } = setup();
  watchApply(obj('x', '10'));
  view.noteWrite(obj('x', '20', { labels: { mine: 'yes' } }), '10');
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), '20');
  watchApply(obj('x', '15'));
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), '20', 'an older event does not displace our write');
  watchApply(obj('x', '20'));
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), '20');
  assert.is(view.pendingCount, 0, 'the watch caught up: the overlay is empty');
  watchApply(obj('x', '30'));
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), '30');
});

test('a write older than the cache, or than the stream position, is ignored', () => {
  const { view, watchApply } = setup();
  watchApply(obj('x', '10'));
  view.noteWrite(obj('x', '8'), '10');
  assert.is(view.pendingCount, 0);
  view.noteWrite(obj('y', '9'), '10');
  assert.is(view.pendingCount, 0, 'the stream is past rv 9, so the cache already reflects that write');
});

test('a bookmark past the written revision settles it (the object is outside the selection)', () => {
  const { view } = setup();
  view.noteWrite(obj('x', '20'), '10');
  assert.is(view.size, 1);
  view.advance('19');
  assert.is(view.pendingCount, 1);
  view.advance('25');
  assert.is(view.pendingCount, 0);
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined);
});

test('with unparsable resourceVersions the newer state is whichever arrived last', () => {
  const { view, watchApply } = setup();
  watchApply(obj('x', 'a1'));
  view.noteWrite(obj('x', 'b2', { labels: { mine: 'yes' } }), 'a1');
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), 'b2');
  view.advance('zz');
  assert.is(view.pendingCount, 1, 'an unparsable stream position settles nothing');
  watchApply(obj('x', 'c3'));
  assert.is(rvOf(view.get({ namespace: 'a', name: 'x' })), 'c3');
});

test('the stored copy of a write is frozen; the caller keeps a mutable object', () => {
  const { view } = setup();
  const mine: Labelled = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'a', uid: 'u', resourceVersion: '5' } };
  view.noteWrite(mine, '1');
  mine.metadata.labels = { changed: 'later' };
  const served = view.get({ namespace: 'a', name: 'x' });
  assert.ok(Object.isFrozen(served?.metadata));
  assert.is(served?.metadata.labels, undefined);
});

test('a deleted object is hidden until the watch reports the delete', () => {
  const { view, watchApply, watchDelete } = setup();
  watchApply(obj('x', '10'));
  view.noteDelete({ namespace: 'a', name: 'x' });
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined);
  assert.equal(view.list('a'), []);
  assert.is(view.size, 0);
  view.advance('100');
  watchApply(obj('x', '11', { labels: { late: 'update' } }));
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined, 'an update from before the delete stays hidden');
  watchDelete(obj('x', '12'));
  assert.is(view.pendingCount, 0);
  watchApply(obj('x', '13', { uid: 'new' }));
  assert.is(view.get({ namespace: 'a', name: 'x' })?.metadata.uid, 'new', 'a recreation is visible');
});

test('a delete held up by finalizers settles once the cache shows the object terminating', () => {
  const { view, watchApply } = setup();
  watchApply(obj('x', '10', { finalizers: ['f'] }));
  view.noteDelete({ namespace: 'a', name: 'x' });
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined);
  watchApply(obj('x', '11', { finalizers: ['f'], deletionTimestamp: '2026-01-01T00:00:00Z' }));
  assert.is(view.get({ namespace: 'a', name: 'x' })?.metadata.deletionTimestamp, '2026-01-01T00:00:00Z');
});

test('a write that removed the last finalizer hides the object until its delete event, whatever resourceVersion the response carries', () => {
  const { view, watchApply, watchDelete } = setup();
  const terminating = { finalizers: ['f'], deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
  watchApply(obj('x', '11', terminating));
  // The apiserver answers the finalizer removal with the object as it was deleted: rv 11, no finalizers.
  view.noteWrite(obj('x', '11', { ...terminating, finalizers: [] }), '11');
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined, 'our own finalizer removal is not read back as still pending');
  watchApply(obj('x', '11', terminating));
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined, 'a late update does not bring it back');
  watchDelete(obj('x', '12', terminating));
  assert.is(view.pendingCount, 0);
  view.noteWrite(obj('y', '5', { deletionTimestamp: '2026-01-01T00:00:00Z' }), '11');
  assert.is(view.pendingCount, 0, 'nothing to hide for an object the cache does not hold');
});

test('a delete hides the object even when the cache has not seen it yet', () => {
  const { view, watchApply, watchDelete } = setup();
  view.noteDelete({ namespace: 'a', name: 'x' });
  watchApply(obj('x', '10'));
  assert.is(view.get({ namespace: 'a', name: 'x' }), undefined);
  watchDelete(obj('x', '11'));
  assert.is(view.pendingCount, 0);
});

test('list and byIndex see pending writes and deletes, with index values of the written version', () => {
  const { store, view, watchApply } = setup();
  store.addIndex('state', byLabel('state'));
  watchApply(obj('h1', '10', { labels: { state: 'available' } }));
  watchApply(obj('h2', '11', { labels: { state: 'available' } }));
  watchApply(obj('h3', '12', { labels: { state: 'available' } }));
  view.noteWrite(obj('h1', '20', { labels: { state: 'claimed' } }), '12');
  view.noteDelete({ namespace: 'a', name: 'h2' });
  view.noteWrite(obj('h4', '21', { labels: { state: 'available' } }), '12');
  const names = (list: readonly Labelled[]) => list.map((o) => o.metadata.name).sort();
  assert.equal(names(view.byIndex('state', 'available')), ['h3', 'h4']);
  assert.equal(names(view.byIndex('state', 'claimed')), ['h1']);
  assert.equal(names(view.list('a')), ['h1', 'h3', 'h4']);
  assert.equal(view.list('other'), []);
  assert.is(view.size, 3);
});

test.run();
