// The work queue and controller against the real kube-apiserver: events from a real watch coalesce,
// no key is reconciled twice at once under load and every key's last reconcile sees its last write,
// a failing key backs off 5, 10, 20 … ms and events do not overtake it, requeueAfter is honoured.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { type ConfigMap, ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import type { Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('controller and work queue on the real apiserver');
const env = withSharedEnv(test);

let admin: Client;
test.before(() => {
  admin = new Client(Transport.fromConnection(env().admin));
});
test.after(() => admin.transport.close());

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.unreachable(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Seen {
  readonly name: string;
  readonly at: number;
  /** The `data.value` the reconcile read from the cache. */
  readonly value: string | undefined;
}

/**
 * A ConfigMap controller in a fresh namespace, on a real informer. `reconcile` gets the request and
 * the object as the cache holds it; every call is recorded.
 */
async function run(
  prefix: string,
  reconcile: (request: Request, cm: Readonly<ConfigMap> | undefined, calls: number) => Promise<Result> | Result,
  maxConcurrentReconciles = 1,
) {
  const namespace = await freshNamespace(env().admin.client, prefix);
  const factory = new InformerFactory(admin, { namespace });
  const registry = new Registry();
  const informer = factory.informerFor(ConfigMapResource);
  const seen: Seen[] = [];
  const controller = controllerFor('configmap', ConfigMapResource, { informers: factory, registry })
    .withOptions({ maxConcurrentReconciles })
    .build((request) => {
      const cm = informer.store.get(request);
      seen.push({ name: request.name, at: performance.now(), value: cm?.data?.['value'] });
      return Promise.resolve(reconcile(request, cm, seen.filter((s) => s.name === request.name).length));
    });
  const stop = new AbortController();
  const running = Promise.all([factory.start(stop.signal), controller.start(stop.signal)]);
  await factory.waitForSync();
  return {
    api: admin.api(ConfigMapResource, namespace),
    informer,
    registry,
    seen,
    of: (name: string) => seen.filter((s) => s.name === name),
    async stop() {
      stop.abort();
      await running;
    },
  };
}

const cm = (name: string, value = '0') => newConfigMap({ metadata: { name }, data: { value } });

test('50 updates of an object that waits behind a busy worker make one reconcile, which sees the last write', async () => {
  let release!: () => void;
  const busy = new Promise<void>((r) => (release = r));
  const t = await run('ctl-coalesce', async (request) => {
    if (request.name === 'busy') await busy;
    return {};
  });
  try {
    await t.api.create(cm('busy'));
    await until('busy reconciling', () => t.of('busy').length === 1);
    await t.api.create(cm('a'));
    let last = await t.api.mergePatch('a', { data: { value: '1' } });
    for (let i = 2; i <= 50; i++) last = await t.api.mergePatch('a', { data: { value: String(i) } });
    await until(
      'the cache to hold the last write',
      () => t.informer.store.get({ namespace: last.metadata.namespace, name: 'a' })?.metadata.resourceVersion === last.metadata.resourceVersion,
    );
    release();
    await until('a reconciled', () => t.of('a').length === 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(t.of('a').map((s) => s.value), ['50'], '51 events, one reconcile, of the latest state');
  } finally {
    await t.stop();
  }
});

test('200 concurrent writes over 10 objects with 4 workers: never two reconciles of one object at once, each ends on its last write', async () => {
  const running = new Map<string, number>();
  let overlap = 0;
  let peak = 0;
  const t = await run(
    'ctl-load',
    async (request) => {
      const n = (running.get(request.name) ?? 0) + 1;
      running.set(request.name, n);
      if (n > 1) overlap++;
      peak = Math.max(peak, [...running.values()].reduce((a, b) => a + b, 0));
      // A real round trip, so reconciles overlap in time.
      await admin.api(ConfigMapResource, request.namespace ?? '').get(request.name);
      running.set(request.name, running.get(request.name)! - 1);
      return {};
    },
    4,
  );
  try {
    const names = Array.from({ length: 10 }, (_, i) => `k${i}`);
    await Promise.all(names.map((n) => t.api.create(cm(n))));
    const final = new Map<string, string>();
    const writes = Array.from({ length: 200 }, (_, i) => {
      const name = names[Math.floor(Math.random() * names.length)]!;
      return { name, value: String(i + 1) };
    });
    // Writes to one object are sequential (so "its last write" is well defined); objects run in parallel.
    await Promise.all(
      names.map(async (name) => {
        for (const w of writes.filter((x) => x.name === name)) {
          await t.api.mergePatch(name, { data: { value: w.value } });
          final.set(name, w.value);
        }
      }),
    );
    await until(
      'every object reconciled at its last write',
      () => names.every((n) => t.of(n).at(-1)?.value === (final.get(n) ?? '0')) && [...running.values()].every((v) => v === 0),
    );
    assert.is(overlap, 0, 'no object was reconciled by two workers at once');
    assert.ok(peak > 1, `workers ran in parallel (peak ${peak})`);
    assert.ok(t.seen.length < 210, `events coalesced: ${t.seen.length} reconciles for 210 writes`);
  } finally {
    await t.stop();
  }
});

test('a failing object backs off 5, 10, 20 … 320 ms; an update during the backoff does not overtake it', async () => {
  const t = await run('ctl-backoff', (_request, _cm, calls) => {
    if (calls <= 8) throw new Error('BareMetalHost not reachable');
    return {};
  });
  try {
    await t.api.create(cm('f'));
    await until('7 retries', () => t.of('f').length === 8, 10_000);
    const at = t.of('f').map((s) => s.at);
    const gaps = at.slice(1).map((x, i) => x - at[i]!);
    const expected = [5, 10, 20, 40, 80, 160, 320];
    gaps.forEach((gap, i) => {
      assert.ok(gap >= expected[i]! - 1, `retry ${i + 1} after ${gap.toFixed(1)} ms, not before ${expected[i]} ms`);
      assert.ok(gap < expected[i]! + 60, `retry ${i + 1} after ${gap.toFixed(1)} ms, near ${expected[i]} ms`);
    });
    // The 8th failure set a 640 ms backoff. An update now must not cause an early reconcile.
    const failedAt = at[7]!;
    await t.api.mergePatch('f', { data: { value: 'changed' } });
    await until('the retry', () => t.of('f').length === 9, 5_000);
    const retry = t.of('f')[8]!;
    assert.ok(retry.at - failedAt >= 639, `retried after ${(retry.at - failedAt).toFixed(1)} ms, not earlier than the 640 ms backoff`);
    assert.is(retry.value, 'changed', 'the retry sees the update it absorbed');
    const text = t.registry.render();
    assert.ok(text.includes('controller_runtime_reconcile_errors_total{controller="configmap"} 8'), text);
    assert.ok(text.includes('controller_runtime_reconcile_total{controller="configmap",result="success"} 1'));
    assert.ok(text.includes('workqueue_retries_total{name="configmap",controller="configmap"} 8'));
  } finally {
    await t.stop();
  }
});

test('requeueAfter: the object is reconciled again after the delay, not before', async () => {
  const t = await run('ctl-requeue', (_request, _cm, calls) => (calls === 1 ? { requeueAfterMs: 300 } : {}));
  try {
    await t.api.create(cm('r'));
    await until('the requeued reconcile', () => t.of('r').length === 2, 5_000);
    const [first, second] = t.of('r');
    const gap = second!.at - first!.at;
    assert.ok(gap >= 299 && gap < 300 + 100, `requeued after ${gap.toFixed(1)} ms`);
    await new Promise((r) => setTimeout(r, 400));
    assert.is(t.of('r').length, 2, 'a plain success does not requeue');
    assert.ok(t.registry.render().includes('controller_runtime_reconcile_total{controller="configmap",result="requeue_after"} 1'));
  } finally {
    await t.stop();
  }
});

test.run();
