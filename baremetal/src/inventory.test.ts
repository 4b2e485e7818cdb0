import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Informer, Store } from '@metal3-ts/shared/cache/types';
import { FakeInformer } from '@metal3-ts/shared/testing/fake-informer';
import type { HostConsumer } from './consumer.ts';
import { HOST_CONSUMER_INDEX, HostInventory, hostInventory, isSelectable, SELECTABLE_HOST_INDEX, selectableHostKeys } from './inventory.ts';
import { hostSelectorRequirements, matchesRequirements } from './label-selector.ts';
import { chooseHost } from './selection.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host inventory');

const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';

/** A FakeInformer whose store records every read, to show which index entries a lookup touched. */
function spiedInformer(): { informer: Informer<BareMetalHost>; fake: FakeInformer<BareMetalHost>; reads: string[] } {
  const fake = new FakeInformer(BareMetalHostResource);
  const reads: string[] = [];
  const store: Store<BareMetalHost> = {
    get: (key) => fake.store.get(key),
    list: (namespace) => {
      reads.push(`list ${namespace ?? '*'}`);
      return fake.store.list(namespace);
    },
    byIndex: (index, value) => {
      const hosts = fake.store.byIndex(index, value);
      reads.push(`${index === SELECTABLE_HOST_INDEX ? 'selectable' : 'consumer'} ${value} → ${hosts.length}`);
      return hosts;
    },
    get size() {
      return fake.store.size;
    },
  };
  const informer: Informer<BareMetalHost> = {
    descriptor: fake.descriptor,
    store,
    addIndex: (name, fn) => fake.addIndex(name, fn),
    subscribe: (handler) => fake.subscribe(handler),
    hasSynced: () => fake.hasSynced(),
    waitForSync: (signal) => fake.waitForSync(signal),
    noteWrite: (object) => fake.noteWrite(object),
    noteDelete: (key) => fake.noteDelete(key),
  };
  return { informer, fake, reads };
}

test('selectable hosts: free and either ready/available or reserved for node reuse (any state)', () => {
  assert.ok(isSelectable(testHost('a')));
  assert.ok(isSelectable(testHost('a', { state: 'deprovisioning', labels: { [REUSE]: 'md-x' } })));
  assert.not.ok(isSelectable(testHost('a', { state: 'provisioned' })));
  assert.not.ok(isSelectable(testHost('a', { consumer: machineRef('m') })));
  assert.not.ok(isSelectable(testHost('a', { errorMessage: 'x' })));
  assert.equal(selectableHostKeys(testHost('a', { labels: { pool: 'p' } })), ['ns/*', 'ns/pool', 'ns/pool=p']);
  assert.equal(selectableHostKeys(testHost('a', { state: 'inspecting' })), []);
});

test('a lookup reads the smallest index entry a positive requirement points to, never the whole cache', () => {
  const { informer, fake, reads } = spiedInformer();
  const inventory = new HostInventory(informer);
  for (let i = 0; i < 50; i++) fake.create(testHost(`h-${String(i).padStart(2, '0')}`, { labels: { pool: i < 40 ? 'big' : 'small', rack: `r${i % 5}` } }));
  const consumer: HostConsumer = {
    ref: machineRef('m-0'),
    hostSelector: { matchLabels: { pool: 'small' }, matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }, { key: 'gpu', operator: '!' }] },
  };
  const hosts = inventory.candidates(consumer);
  assert.equal(hosts.map((h) => h.metadata.name), ['h-41', 'h-42', 'h-46', 'h-47']);
  assert.ok(!reads.some((r) => r.startsWith('list')), reads.join('\n'));
  assert.ok(!reads.some((r) => r.startsWith('selectable ns/* ')), `no full-namespace read: ${reads.join('; ')}`);
  assert.ok(reads.includes('selectable ns/pool=small → 10'), reads.join('; '));
});

test('only negative requirements (or none) read the namespace entry; other namespaces never leak in', () => {
  const { informer, fake, reads } = spiedInformer();
  const inventory = new HostInventory(informer);
  fake.create(testHost('a', { labels: { pool: 'x' } }));
  fake.create(testHost('b'));
  fake.create(testHost('c', { namespace: 'other' }));
  const names = (consumer: HostConsumer) => inventory.candidates(consumer).map((h) => h.metadata.name);
  assert.equal(names({ ref: machineRef('m') }), ['a', 'b']);
  assert.equal(names({ ref: machineRef('m'), hostSelector: { matchExpressions: [{ key: 'pool', operator: 'NotIn', values: ['x'] }] } }), ['b']);
  assert.ok(reads.every((r) => r.startsWith('consumer') || r.startsWith('selectable ns/* ')), reads.join('; '));
});

test('the index follows the cache: claimed hosts leave it, released ones come back, and the owner finds its host', () => {
  const fake = new FakeInformer(BareMetalHostResource);
  const inventory = hostInventory(fake);
  assert.is(hostInventory(fake), inventory, 'one inventory per informer (indexes added once)');
  fake.create(testHost('a', { labels: { pool: 'p' } }));
  fake.create(testHost('b', { labels: { pool: 'p' }, state: 'registering' }));
  const me = machineRef('m-0');
  const consumer: HostConsumer = { ref: me, hostSelector: { matchLabels: { pool: 'p' } } };
  assert.equal(inventory.candidates(consumer).map((h) => h.metadata.name), ['a']);

  fake.update(testHost('a', { labels: { pool: 'p' }, consumer: me, state: 'provisioning' }));
  fake.update(testHost('b', { labels: { pool: 'p' }, state: 'available' }));
  assert.equal(inventory.ownedBy(me).map((h) => h.metadata.name), ['a']);
  assert.equal(inventory.ownedBy({ ...me, apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2' }).map((h) => h.metadata.name), ['a'], 'version-free');
  assert.equal(inventory.candidates(consumer).map((h) => h.metadata.name), ['a', 'b']);
  assert.is(chooseHost(inventory.candidates(consumer), consumer).outcome, 'owned');
  assert.equal(inventory.candidates({ ref: machineRef('m-1'), hostSelector: consumer.hostSelector }).map((h) => h.metadata.name), ['b']);

  fake.update(testHost('a', { labels: { pool: 'p' } }));
  assert.equal(inventory.ownedBy(me), []);
  assert.equal(inventory.candidates(consumer).map((h) => h.metadata.name), ['a', 'b']);
  fake.delete({ namespace: 'ns', name: 'a' });
  assert.equal(inventory.candidates(consumer).map((h) => h.metadata.name), ['b']);
});

test('noteWrite (read your own writes) takes a claimed host out of the candidates before the watch says so', () => {
  const fake = new FakeInformer(BareMetalHostResource);
  const inventory = hostInventory(fake);
  fake.create(testHost('a'));
  inventory.noteWrite(testHost('a', { consumer: machineRef('m-0'), resourceVersion: '99' }));
  assert.equal(inventory.candidates({ ref: machineRef('m-1') }), []);
  assert.equal(inventory.ownedBy(machineRef('m-0')).map((h) => h.metadata.name), ['a']);
});

test('index lookups agree with a brute-force filter over many selectors', () => {
  const fake = new FakeInformer(BareMetalHostResource);
  const inventory = hostInventory(fake);
  const states = ['available', 'ready', 'provisioned', 'inspecting'];
  for (let i = 0; i < 60; i++) {
    fake.create(
      testHost(`h-${i}`, {
        state: states[i % 4] ?? 'available',
        labels: { pool: `p${i % 3}`, cpus: String(8 * (i % 5)), ...(i % 7 === 0 ? { gpu: 'yes' } : {}) },
      }),
    );
  }
  const selectors = [
    {},
    { matchLabels: { pool: 'p1' } },
    { matchExpressions: [{ key: 'pool', operator: 'In', values: ['p0', 'p2'] }] },
    { matchExpressions: [{ key: 'cpus', operator: 'Gt', values: ['16'] }, { key: 'gpu', operator: '!' }] },
    { matchExpressions: [{ key: 'gpu', operator: 'Exists' }, { key: 'pool', operator: 'NotIn', values: ['p0'] }] },
    { matchExpressions: [{ key: 'cpus', operator: 'lt', values: ['9'] }] },
  ];
  for (const hostSelector of selectors) {
    const requirements = hostSelectorRequirements(hostSelector);
    const expected = fake.store
      .list('ns')
      .filter((h) => isSelectable(h) && matchesRequirements(requirements, h.metadata.labels))
      .map((h) => h.metadata.name ?? '')
      .sort();
    const got = inventory.candidates({ ref: machineRef('m'), hostSelector }).map((h) => h.metadata.name ?? '');
    assert.equal(got, expected, JSON.stringify(hostSelector));
  }
  assert.is(fake.store.byIndex(HOST_CONSUMER_INDEX, 'x').length, 0);
});

test.run();
