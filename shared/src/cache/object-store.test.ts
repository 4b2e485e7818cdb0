import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { byLabel, byOwnerUid, OWNER_UID_INDEX } from './indexers.ts';
import { keyString, ObjectStore, UnknownIndexError } from './object-store.ts';

const test = suite('ObjectStore');

const obj = (name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}, namespace: string | null = 'a'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, resourceVersion: rv, ...extra },
});
const names = (objects: readonly KubeObject[]) => objects.map((o) => o.metadata.name).sort();

test('keys are namespace/name, or name alone for cluster-scoped objects', () => {
  assert.is(keyString({ namespace: 'a', name: 'x' }), 'a/x');
  assert.is(keyString({ name: 'node-1' }), 'node-1');
  const store = new ObjectStore<KubeObject>();
  store.apply(obj('node-1', '1', {}, null));
  assert.is(store.get({ name: 'node-1' })?.metadata.name, 'node-1');
});

test('apply reports add then update with the previous object; delete carries the final state', () => {
  const store = new ObjectStore<KubeObject>();
  const [added] = store.apply(obj('x', '1'));
  assert.equal(added?.type, 'add');
  const [updated] = store.apply(obj('x', '2'));
  assert.is(updated?.type, 'update');
  assert.is(updated?.type === 'update' && updated.old.metadata.resourceVersion, '1');
  const [deleted] = store.delete(obj('x', '3'));
  assert.is(deleted?.type, 'delete');
  assert.is(deleted?.object.metadata.resourceVersion, '3');
  assert.is(store.size, 0);
  assert.equal(store.delete(obj('x', '4')), [], 'deleting an unknown object reports nothing');
});

test('a new uid under the same key is reported as delete of the old object and add of the new one', () => {
  const store = new ObjectStore<KubeObject>();
  store.apply(obj('x', '1'));
  const events = store.apply(obj('x', '5', { uid: 'other' }));
  assert.equal(
    events.map((e) => [e.type, e.object.metadata.uid]),
    [
      ['delete', 'uid-x'],
      ['add', 'other'],
    ],
  );
});

test('replace synthesises deletes for vanished objects and stays quiet for unchanged ones', () => {
  const store = new ObjectStore<KubeObject>();
  store.replace([obj('keep', '1'), obj('change', '2'), obj('vanish', '3')]);
  const events = store.replace([obj('keep', '1'), obj('change', '7'), obj('new', '8')]);
  assert.equal(
    events.map((e) => `${e.type}:${e.object.metadata.name}`),
    ['delete:vanish', 'update:change', 'add:new'],
  );
  assert.equal(names(store.list()), ['change', 'keep', 'new']);
});

test('list filters by namespace', () => {
  const store = new ObjectStore<KubeObject>();
  store.apply(obj('x', '1', {}, 'a'));
  store.apply(obj('y', '2', {}, 'b'));
  assert.equal(names(store.list('a')), ['x']);
  assert.equal(names(store.list('b')), ['y']);
  assert.equal(names(store.list()), ['x', 'y']);
  store.delete(obj('y', '3', {}, 'b'));
  assert.equal(store.list('b'), []);
});

test('an index added after objects arrived files them at once and follows updates and deletes', () => {
  const store = new ObjectStore<KubeObject>();
  const owner = (uid: string) => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: uid, uid }] });
  store.apply(obj('x', '1', owner('o1')));
  store.apply(obj('y', '2', owner('o1')));
  store.addIndex(OWNER_UID_INDEX, byOwnerUid);
  assert.equal(names(store.byIndex(OWNER_UID_INDEX, 'o1')), ['x', 'y']);
  store.apply(obj('y', '3', owner('o2')));
  assert.equal(names(store.byIndex(OWNER_UID_INDEX, 'o1')), ['x']);
  assert.equal(names(store.byIndex(OWNER_UID_INDEX, 'o2')), ['y']);
  store.delete(obj('x', '4'));
  assert.equal(store.byIndex(OWNER_UID_INDEX, 'o1'), []);
});

test('byLabel files objects under the label value and skips unlabelled ones', () => {
  const store = new ObjectStore<KubeObject>();
  store.addIndex('pool', byLabel('pool'));
  store.apply(obj('x', '1', { labels: { pool: 'blue' } }));
  store.apply(obj('y', '2', { labels: { other: 'z' } }));
  assert.equal(names(store.byIndex('pool', 'blue')), ['x']);
  assert.equal(store.byIndex('pool', 'z'), []);
});

test('reading an unknown index throws a typed error; adding a name twice keeps the first', () => {
  const store = new ObjectStore<KubeObject>();
  assert.throws(() => store.byIndex('nope', 'v'), (e: unknown) => e instanceof UnknownIndexError);
  store.addIndex('pool', byLabel('pool'));
  store.addIndex('pool', byLabel('other'));
  store.apply(obj('x', '1', { labels: { pool: 'blue', other: 'red' } }));
  assert.equal(names(store.byIndex('pool', 'blue')), ['x']);
  assert.equal(store.byIndex('pool', 'red'), []);
});

test('an index function that throws leaves that object out of the index and is reported; the store carries on', () => {
  const reported: string[] = [];
  const store = new ObjectStore<KubeObject>((index, object) => reported.push(`${index}:${object.metadata.name}`));
  store.addIndex('picky', (o) => {
    if (o.metadata.name === 'bad') throw new Error('no');
    return ['all'];
  });
  store.apply(obj('bad', '1'));
  store.apply(obj('good', '2'));
  assert.equal(names(store.byIndex('picky', 'all')), ['good']);
  assert.is(store.size, 2);
  assert.equal(reported, ['picky:bad']);
});

test.run();
