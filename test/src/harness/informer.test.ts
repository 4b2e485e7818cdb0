// The shared informer against the real kube-apiserver: changes observed in order, convergence after
// the apiserver is killed and restarted, convergence after a forced 410 (relist with synthesised
// deletes), and bookmarks requested and received. Faults are injected by a loopback proxy
// (api-proxy.ts) between the informer and the apiserver.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, type KubeObject, type RequestDeadlines, RequestTimeoutError, Transport } from '@metal3-ts/generated';
import { type ConfigMap, ConfigMapResource, NamespaceResource, newConfigMap, newNamespace } from '@metal3-ts/generated/core/v1';
import { SharedInformer } from '@metal3-ts/shared/cache/informer';
import type { CacheEvent } from '@metal3-ts/shared/cache/types';
import { watcher, type WatcherEvent } from '@metal3-ts/shared/cache/watcher';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { ApiProxy, type Upstream } from './api-proxy.ts';

const test = suite('informer on the real apiserver');
const env = withSharedEnv(test);

let admin: Client;
test.before(() => {
  admin = new Client(Transport.fromConnection(env().admin));
});
test.after(() => admin.transport.close());

/** An informer on ConfigMaps of `namespace`, reached through `server`, recording every event. */
function startInformer(server: string, namespace: string, tuning: { inactivityTimeoutMs?: number } = {}, deadlines?: RequestDeadlines) {
  const client = new Client(Transport.fromConnection({ server }));
  if (deadlines) client.transport.deadlines = deadlines;
  const restarts: string[] = [];
  const errors: unknown[] = [];
  const informer = new SharedInformer<ConfigMap>(client.api(ConfigMapResource, namespace), ConfigMapResource, {
    namespace,
    backoff: { initialMs: 50, maxMs: 1000 },
    ...tuning,
    onRestart: (reason, error) => (restarts.push(reason), errors.push(error)),
  });
  const events: CacheEvent<ConfigMap>[] = [];
  informer.subscribe((e) => events.push(e));
  const aborter = new AbortController();
  const running = informer.run(aborter.signal);
  return {
    informer,
    events,
    restarts,
    errors,
    stop: async () => {
      aborter.abort();
      await running;
      client.transport.close();
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.unreachable(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** name@resourceVersion of every object, sorted: equal snapshots mean equal caches. */
const snapshot = (objects: readonly Readonly<KubeObject>[]) => objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
const fresh = async (client: Client, namespace: string) => snapshot((await client.api(ConfigMapResource, namespace).list()).items);
const names = (events: CacheEvent<ConfigMap>[], type: CacheEvent<ConfigMap>['type']) =>
  events.filter((e) => e.type === type).map((e) => e.object.metadata.name ?? '').sort();
const cm = (name: string, value = '1') => newConfigMap({ metadata: { name }, data: { value } });

async function createAll(client: Client, namespace: string, prefix: string, count: number): Promise<void> {
  const api = client.api(ConfigMapResource, namespace);
  await Promise.all(Array.from({ length: count }, (_, i) => api.create(cm(`${prefix}${i}`))));
}

test('create, update and delete are observed in order and the store converges', async () => {
  const ns = await freshNamespace(env().admin.client, 'inf-crud');
  const proxy = await ApiProxy.start(env().admin as Upstream);
  const run = startInformer(proxy.url, ns);
  try {
    await run.informer.waitForSync();
    const api = admin.api(ConfigMapResource, ns);
    await api.create(cm('a'));
    await api.mergePatch('a', { data: { value: '2' } });
    await api.mergePatch('a', { data: { value: '3' } });
    await api.delete('a');
    await api.create(cm('b'));
    await until('five events', () => run.events.length === 5);
    assert.equal(
      run.events.map((e) => `${e.type}:${e.object.metadata.name}:${e.object.data?.['value']}`),
      ['add:a:1', 'update:a:2', 'update:a:3', 'delete:a:3', 'add:b:1'],
    );
    assert.equal(snapshot(run.informer.store.list()), await fresh(admin, ns));
    // Bookmarks are asked for on every watch, with a server timeout in [300, 600] s.
    const watches = proxy.requests.filter((r) => r.watch);
    assert.ok(watches.length >= 1);
    for (const w of watches) {
      const query = new URL(w.path, 'http://x').searchParams;
      assert.is(query.get('allowWatchBookmarks'), 'true', w.path);
      const timeout = Number(query.get('timeoutSeconds'));
      assert.ok(timeout >= 300 && timeout <= 600, w.path);
    }
  } finally {
    await run.stop();
    await proxy.close();
  }
});

test('bookmarks advance the watcher past writes outside its selection, without any event', async () => {
  const ns = await freshNamespace(env().admin.client, 'inf-bookmark');
  const other = await freshNamespace(env().admin.client, 'inf-other');
  await createAll(admin, ns, 'c', 2);
  const aborter = new AbortController();
  const seen: WatcherEvent<ConfigMap>[] = [];
  // The apiserver sends a bookmark 2 s before a watch's timeout (and about once a minute); a 4 s
  // timeout shows one quickly.
  const done = (async () => {
    for await (const e of watcher(admin.api(ConfigMapResource, ns), aborter.signal, { watchTimeoutSeconds: { min: 4, max: 4 } })) seen.push(e);
  })();
  try {
    await until('the list', () => seen.length > 0);
    const written = await admin.api(ConfigMapResource, other).create(cm('elsewhere'));
    const past = (e: WatcherEvent<ConfigMap>) => e.type === 'bookmark' && BigInt(e.resourceVersion) >= BigInt(written.metadata.resourceVersion ?? '0');
    await until("a bookmark past the other namespace's write", () => seen.some(past), 15_000);
    assert.is(seen[0]?.type, 'replace');
    assert.equal(seen.filter((e) => e.type === 'apply' || e.type === 'delete'), [], 'no object events outside the namespace');
  } finally {
    aborter.abort();
    await done;
  }
});

test("informer list pages live by the client's list deadline (--kube-api-list-timeout), the only timer on them", async () => {
  const ns = await freshNamespace(env().admin.client, 'inf-list-deadline');
  await createAll(admin, ns, 'cm-', 3);
  const proxy = await ApiProxy.start(env().admin as Upstream);
  proxy.latency(800);
  const run = startInformer(proxy.url, ns, {}, { default: 30_000, list: 300 });
  try {
    await until('a list cut by the transport deadline', () => run.errors.some((e) => e instanceof RequestTimeoutError && e.verb === 'list'));
    assert.is(run.informer.hasSynced(), false);
    proxy.latency(0);
    await run.informer.waitForSync();
    assert.is(run.informer.store.size, 3);
  } finally {
    await run.stop();
    await proxy.close();
  }
});

test('a watch that goes silent (half-open connection) is abandoned after the inactivity timeout and resumed', async () => {
  const ns = await freshNamespace(env().admin.client, 'inf-silent');
  const proxy = await ApiProxy.start(env().admin as Upstream);
  const run = startInformer(proxy.url, ns, { inactivityTimeoutMs: 1500 });
  try {
    await run.informer.waitForSync();
    await until('an open watch', () => proxy.openWatches === 1);
    proxy.stallWatches();
    await admin.api(ConfigMapResource, ns).create(cm('during-stall'));
    await until('the object made during the stall', () => run.informer.store.size === 1, 10_000);
    assert.ok(run.restarts.includes('inactive'), run.restarts.join());
    assert.is(proxy.requests.filter((r) => !r.watch).length, 1, 'resumed from its resourceVersion, no relist');
    assert.equal(names(run.events, 'add'), ['during-stall']);
  } finally {
    await run.stop();
    await proxy.close();
  }
});

test('forced 410 while cut off: the relist synthesises the missed deletes and the store equals a fresh list', async () => {
  const ns = await freshNamespace(env().admin.client, 'inf-gone');
  await createAll(admin, ns, 'c', 8);
  const proxy = await ApiProxy.start(env().admin as Upstream);
  const run = startInformer(proxy.url, ns);
  try {
    await run.informer.waitForSync();
    assert.is(run.informer.store.size, 8);
    const api = admin.api(ConfigMapResource, ns);
    for (const [round, mode] of [[0, 'status'], [1, 'event']] as const) {
      run.events.length = 0;
      proxy.block();
      await until('a reset request', () => proxy.requests.at(-1)?.outcome === 'reset', 5000);
      // Changes the informer cannot see: its watch is cut and every retry is reset.
      await api.delete(`c${round * 3}`);
      await api.delete(`c${round * 3 + 1}`);
      await api.mergePatch(`c${round * 3 + 2}`, { data: { value: 'changed' } });
      await api.create(cm(`new${round}`));
      proxy.armGone(mode);
      proxy.unblock();
      const expected = await fresh(admin, ns);
      await until(`convergence after 410 (${mode})`, () => snapshot(run.informer.store.list()).join() === expected.join());
      assert.equal(names(run.events, 'delete'), [`c${round * 3}`, `c${round * 3 + 1}`], `deletes synthesised (${mode})`);
      assert.equal(names(run.events, 'add'), [`new${round}`]);
      assert.equal(names(run.events, 'update'), [`c${round * 3 + 2}`]);
      // The informer's first request after the injected 410 was a list, not a resumed watch.
      const goneAt = proxy.requests.findIndex((r) => r.outcome === `gone-${mode}`);
      assert.ok(goneAt >= 0, `the proxy injected the 410 (${mode})`);
      assert.is(proxy.requests[goneAt + 1]?.watch, false, `relist after 410 (${mode})`);
    }
    assert.equal(snapshot(run.informer.store.list()), await fresh(admin, ns));
    assert.ok(run.restarts.includes('gone'));
  } finally {
    await run.stop();
    await proxy.close();
  }
});

test('apiserver killed and restarted: the store converges to the true state with no missed delete', async () => {
  const name = 'inf-restart';
  let cluster = await env().startWorkloadCluster(name);
  let direct = new Client(Transport.fromConnection(cluster.apiserver.admin));
  const ns = 'informer';
  await direct.api(NamespaceResource).create(newNamespace({ metadata: { name: ns } }));
  await createAll(direct, ns, 'c', 10);
  const proxy = await ApiProxy.start(cluster.apiserver.admin as Upstream);
  const run = startInformer(proxy.url, ns);
  try {
    await run.informer.waitForSync();
    assert.is(run.informer.store.size, 10);
    direct.transport.close();
    await env().stopWorkloadCluster(name);
    await until('the informer to notice', () => run.restarts.length > 0, 10_000);
    cluster = await env().startWorkloadCluster(name);
    proxy.upstream = cluster.apiserver.admin as Upstream;
    direct = new Client(Transport.fromConnection(cluster.apiserver.admin));
    // Right after the restart, before or while the informer reconnects.
    const api = direct.api(ConfigMapResource, ns);
    await Promise.all([0, 1, 2].map((i) => api.delete(`c${i}`)));
    await Promise.all([3, 4, 5].map((i) => api.mergePatch(`c${i}`, { data: { value: 'after-restart' } })));
    await Promise.all([0, 1].map((i) => api.create(cm(`new${i}`))));
    const expected = await fresh(direct, ns);
    assert.is(expected.length, 9);
    await until('convergence after restart', () => snapshot(run.informer.store.list()).join() === expected.join(), 30_000);
    assert.equal(names(run.events, 'delete'), ['c0', 'c1', 'c2'], 'every delete reached subscribers');
    assert.equal(run.informer.store.get({ namespace: ns, name: 'c3' })?.data, { value: 'after-restart' });
  } finally {
    await run.stop();
    await proxy.close();
    direct.transport.close();
    await env().stopWorkloadCluster(name);
  }
});

test.run();
