import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, Client, type KubeObject, type Transport } from '@metal3-ts/generated';
import * as v1beta1 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as v1beta2 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta2';
import { ConfigMapResource, NodeResource, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { Registry } from '../metrics/registry.ts';
import { IndexLedger, ledgeredInformers } from '../entry/index-ledger.ts';
import { InformerFactory } from './informer-factory.ts';
import { configMap } from './testing/fake-list-watch.ts';
import { FakeTransport } from './testing/fake-transport.ts';

const test = suite('InformerFactory');

function setup(namespace?: string) {
  const transport = new FakeTransport();
  const registry = new Registry();
  const factory = new InformerFactory(new Client(transport as unknown as Transport), {
    ...(namespace ? { namespace } : {}),
    registry,
    watcher: { backoff: { initialMs: 1, maxMs: 4 } },
  });
  return { transport, registry, factory };
}

async function until(what: string, check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

test('one informer per kind, whoever asks', () => {
  const { factory } = setup();
  assert.is(factory.informerFor(ConfigMapResource), factory.informerFor(ConfigMapResource));
  assert.is.not(factory.informerFor(ConfigMapResource) as unknown, factory.informerFor(SecretResource) as unknown);
});

test('start runs every informer, syncs, and an informer asked for after start starts at once', async () => {
  const { transport, factory, registry } = setup();
  transport.source('configmaps').create(configMap('a'));
  const configMaps = factory.informerFor(ConfigMapResource);
  assert.is(factory.hasSynced(), false);
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  assert.is(configMaps.store.size, 1);
  assert.is(factory.hasSynced(), true);
  const nodes = factory.informerFor(NodeResource);
  assert.is(factory.hasSynced(), false, 'a new informer holds readiness back until it syncs');
  await factory.waitForSync();
  assert.is(nodes.hasSynced(), true);
  assert.match(registry.render(), 'informer_cached_objects{resource="configmaps"} 1');
  transport.source('configmaps').create(configMap('b'));
  await until('the second object', () => configMaps.store.size === 2);
  assert.match(registry.render(), 'informer_cached_objects{resource="configmaps"} 2');
  aborter.abort();
  await running;
  assert.is(transport.source('configmaps').openWatches, 0, 'stopping closes every watch');
});

test('the namespace option scopes namespaced kinds and leaves cluster-scoped kinds alone', async () => {
  const { transport, factory } = setup('team-a');
  factory.informerFor(ConfigMapResource);
  factory.informerFor(NodeResource);
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  await until('both watches', () => transport.paths.filter((p) => p.includes('watch=true')).length === 2);
  const watches = transport.paths.filter((p) => p.includes('watch=true')).sort();
  assert.ok(watches[0]?.startsWith('/api/v1/namespaces/team-a/configmaps?'), watches[0]);
  assert.ok(watches[1]?.startsWith('/api/v1/nodes?'), watches[1]);
  assert.ok(watches.every((p) => p.includes('allowWatchBookmarks=true')));
  aborter.abort();
  await running;
});

test('issue 21.2: a watch that went silent drops the pooled connections too (they share its dead path)', async () => {
  const transport = new FakeTransport();
  const factory = new InformerFactory(new Client(transport as unknown as Transport), {
    watcher: { inactivityTimeoutMs: 30, backoff: { initialMs: 1, maxMs: 4 } },
  });
  factory.informerFor(ConfigMapResource);
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  await until('the silent watch to be reopened', () => transport.paths.filter((p) => p.includes('watch=true')).length >= 2);
  assert.ok(transport.idleDrops >= 1, 'the pool was dropped with the silent watch');
  aborter.abort();
  await running;
});

test('a selected informer: shared per selector and transform name, asks for its selector, transforms, and counts toward readiness', async () => {
  const { transport, factory } = setup();
  const dropData = (o: Secret): Secret => (delete o.data, o);
  const selection = { labelSelector: 'rendered', transform: dropData, transformName: 'dropData' };
  const selected = factory.selectedInformerFor(SecretResource, selection);
  assert.is(factory.selectedInformerFor(SecretResource, { ...selection }), selected, 'same selector and transform name: one informer');
  const other = setup().factory;
  assert.is.not(
    other.informerFor(SecretResource) as unknown,
    other.selectedInformerFor(SecretResource, selection) as unknown,
    'the unselected informer of the kind is another',
  );
  const secrets = transport.source('secrets');
  secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', resourceVersion: '1' }, data: { k: 'dg==' } } as never);
  const forbidden = new ApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'secrets is forbidden' }, {
    verb: 'GET',
    path: '/api/v1/secrets',
  });
  // Refused until the test gives the verb back.
  secrets.listFailures.push(...Array.from({ length: 100_000 }, () => forbidden));
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await until('the refusal', () => factory.readiness().reason?.includes('cannot list secrets') === true);
  assert.is(factory.readiness().ok, false);
  secrets.listFailures.length = 0;
  await factory.waitForSync();
  assert.ok(transport.paths.some((p) => p.startsWith('/api/v1/secrets?') && p.includes('labelSelector=rendered')), 'the selector goes to the apiserver');
  assert.is((selected.store.get({ namespace: 'ns', name: 's' }) as { data?: unknown } | undefined)?.data, undefined, 'transformed before caching');
  assert.is(factory.readiness().ok, true, 'the next list worked');
  aborter.abort();
  await running;
});

test('a projected informer: every object, cached as the projection makes it (own writes too), shared per projection name, its size on its own metric line', async () => {
  const { transport, factory, registry } = setup();
  type Named = Pick<Secret, 'apiVersion' | 'kind' | 'metadata'>;
  const names = { name: 'names', project: (o: Secret): Named => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata }) };
  const projected = factory.projectedInformerFor(SecretResource, names);
  assert.is(factory.projectedInformerFor(SecretResource, { ...names }), projected, 'same projection name: one informer');
  assert.is.not(factory.informerFor(SecretResource) as unknown, projected as unknown, 'the full informer of the kind is another');
  const managedFields = [{ manager: 'm', operation: 'Update' }];
  transport.source('secrets').create(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', resourceVersion: '1', managedFields }, data: { k: 'dg==' } } as never,
  );
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  const cached = projected.store.get({ namespace: 'ns', name: 's' });
  assert.equal(Object.keys(cached ?? {}), ['apiVersion', 'kind', 'metadata'], 'the data is not cached');
  assert.is(cached?.metadata.managedFields, undefined, 'managedFields dropped first');
  assert.ok(transport.paths.some((p) => p.startsWith('/api/v1/secrets?') && !p.includes('Selector')), 'no selector: every object');
  assert.match(registry.render(), 'informer_cached_objects{resource="secrets{#names}"} 1');
  // Read your writes: this process's write reaches the projection as the projection caches it.
  const written = { apiVersion: 'v1', kind: 'Secret', metadata: { ...cached?.metadata, resourceVersion: '999', labels: { v: '2' } }, data: { k: 'dg==' } };
  factory.existing(SecretResource)?.noteWrite(written as Secret);
  const noted = projected.store.get({ namespace: 'ns', name: 's' });
  assert.equal(noted?.metadata.labels, { v: '2' });
  assert.equal(Object.keys(noted ?? {}), ['apiVersion', 'kind', 'metadata'], 'projected as the watch would');
  assert.is(written.data.k, 'dg==', "the caller's object is left alone");
  // A write noted on the projected informer itself (a host inventory's onWrite) is projected too.
  const direct = { ...written, metadata: { ...written.metadata, resourceVersion: '1000', labels: { v: '3' } } };
  projected.noteWrite(direct as Secret);
  const again = projected.store.get({ namespace: 'ns', name: 's' });
  assert.equal(again?.metadata.labels, { v: '3' });
  assert.equal(Object.keys(again ?? {}), ['apiVersion', 'kind', 'metadata'], 'projected by the informer itself');
  assert.is(direct.data.k, 'dg==', "the caller's object is left alone");
  aborter.abort();
  await running;
});

test('the all-in-one view: a projection is served by the full informer of the kind (one copy per kind in one process)', () => {
  const { factory } = setup();
  const view = ledgeredInformers(factory, 'cluster', new IndexLedger());
  const projected = view.projectedInformerFor(SecretResource, {
    name: 'names',
    project: (o: Secret) => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata }),
  });
  assert.is(projected.store, factory.informerFor(SecretResource).store as unknown);
});

test('a selected informer by field selector (one object by name, S-11): its own informer per name, the selector sent on list and watch', async () => {
  const { transport, factory } = setup();
  const keep = (o: Secret): Secret => o;
  const byName = (name: string) => ({ fieldSelector: `metadata.name=${name}`, transform: keep, transformName: 'keep' });
  const a = factory.selectedInformerFor(SecretResource, byName('a'));
  assert.is.not(factory.selectedInformerFor(SecretResource, byName('b')) as unknown, a as unknown, 'one informer per name');
  assert.is(factory.selectedInformerFor(SecretResource, byName('a')), a);
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  const asked = transport.paths.filter((p) => p.startsWith('/api/v1/secrets?'));
  for (const name of ['a', 'b']) {
    const selector = `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
    assert.ok(asked.some((p) => p.includes(selector) && !p.includes('watch=')), `list of ${name}: ${asked.join(' ')}`);
    await until(`the watch of ${name}`, () => transport.paths.some((p) => p.includes(selector) && p.includes('watch=true')));
  }
  aborter.abort();
  await running;
});

test('start twice is a wiring error', async () => {
  const { factory } = setup();
  const aborter = new AbortController();
  aborter.abort();
  await factory.start(aborter.signal);
  try {
    await factory.start(aborter.signal);
    assert.unreachable('second start should throw');
  } catch (error) {
    assert.match((error as Error).message, 'twice');
  }
});

test('S-10 readAs: the informer of a kind lists and watches the served version and caches each object projected', async () => {
  const { transport, factory } = setup();
  factory.readAs({
    shape: v1beta1.MachineResource,
    served: v1beta2.MachineResource,
    project: (m: v1beta2.Machine) =>
      ({
        apiVersion: m.apiVersion,
        kind: 'Machine',
        metadata: m.metadata,
        spec: { clusterName: `projected ${m.spec.clusterName}` },
      }) as unknown as v1beta1.Machine,
  });
  transport.source('machines').create({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name: 'm1', namespace: 'ns', resourceVersion: '1', managedFields: [{ manager: 'x' }] },
    spec: { clusterName: 'c1' },
  } as unknown as KubeObject);
  const machines = factory.informerFor(v1beta1.MachineResource);
  const aborter = new AbortController();
  const running = factory.start(aborter.signal);
  await factory.waitForSync();
  const cached = machines.store.get({ namespace: 'ns', name: 'm1' });
  assert.is(cached?.spec?.clusterName, 'projected c1');
  assert.is(cached?.metadata.managedFields, undefined, 'managedFields are dropped first, as for every informer');
  assert.ok(transport.paths.some((p) => p.startsWith('/apis/cluster.x-k8s.io/v1beta2/machines')), transport.paths.join(' '));
  assert.not.ok(transport.paths.some((p) => p.includes('/v1beta1/')), 'nothing asked at v1beta1');
  assert.throws(
    () => factory.readAs({ shape: v1beta1.MachineResource, served: v1beta2.MachineResource, project: () => cached! }),
    /readAs\(Machine\): an informer already reads cluster\.x-k8s\.io\/v1beta1/,
  );
  aborter.abort();
  await running;
});

test("S-10 decideOnce: one decision per key for the whole process, also through the all-in-one's per-controller views", async () => {
  const { factory } = setup();
  const ledger = new IndexLedger();
  let runs = 0;
  const decide = () => Promise.resolve(++runs);
  const views = [ledgeredInformers(factory, 'a', ledger), ledgeredInformers(factory, 'b', ledger)];
  assert.equal(await Promise.all([...views, factory].map((f) => f.decideOnce('k', decide))), [1, 1, 1]);
  assert.is(await factory.decideOnce('other', decide), 2, 'another key decides anew');
});

test.run();
