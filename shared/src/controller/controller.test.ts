import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Clock, ManualClock, realClock } from '../clock/clock.ts';
import { newLogger } from '../log/logger.ts';
import { type Counter, type Gauge, type Histogram, Registry } from '../metrics/registry.ts';
import { type ReconcileContext, type ReconcileFn, type Request, requestKey, type Result, TerminalError } from '../reconcile/reconcile.ts';
import { Controller, type ControllerOptions } from './controller.ts';
import { ReconcileTimeoutError } from './outcome.ts';

const test = suite('controller worker loop');

/** Lets timers and promise chains run: one turn of the event loop. */
const flush = () => new Promise<void>((r) => setTimeout(r, 0));

async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.unreachable(`timed out waiting for ${what}`);
    await flush();
  }
}

/** A promise the test opens by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

interface Call {
  readonly key: string;
  readonly at: number;
  readonly ctx: ReconcileContext;
}

function setup(
  reconcile: (request: Request, ctx: ReconcileContext, n: number) => Promise<Result> | Result,
  options: ControllerOptions = {},
  clock: Clock = new ManualClock(),
) {
  const registry = new Registry();
  const lines: Record<string, unknown>[] = [];
  const log = newLogger({ level: 'debug', sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  const calls: Call[] = [];
  const fn: ReconcileFn = async (request, ctx) => {
    calls.push({ key: requestKey(request), at: clock.now(), ctx });
    return await reconcile(request, ctx, calls.length);
  };
  const controller = new Controller({ name: 'metal3machine', reconciler: fn, registry, log, clock, options });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  const labels = { controller: 'metal3machine' };
  const counter = (n: string) => registry.counter(n, '', []) as Counter;
  const metric = {
    total: (result: string) => counter('controller_runtime_reconcile_total').get({ ...labels, result }),
    errors: () => counter('controller_runtime_reconcile_errors_total').get(labels),
    terminal: () => counter('controller_runtime_terminal_reconcile_errors_total').get(labels),
    panics: () => counter('controller_runtime_reconcile_panics_total').get(labels),
    timeouts: () => counter('controller_runtime_reconcile_timeouts_total').get(labels),
    active: () => (registry.gauge('controller_runtime_active_workers', '', []) as Gauge).get(labels),
  };
  const callsOf = (key: string) => calls.filter((c) => c.key === key);
  const shutdown = async () => {
    stop.abort();
    await running;
  };
  return { controller, registry, lines, calls, callsOf, metric, stop, running, shutdown };
}

const req = (name: string): Request => ({ namespace: 'ns', name });

test('100 enqueues of a key while it waits give exactly one reconcile', async () => {
  const busy = gate();
  const t = setup(async (r) => {
    if (r.name === 'busy') await busy.opened;
    return {};
  });
  t.controller.enqueue(req('busy'));
  await until(() => t.calls.length === 1, 'busy to start');
  for (let i = 0; i < 100; i++) t.controller.enqueue(req('a'));
  busy.open();
  await until(() => t.callsOf('ns/a').length === 1, 'a reconciled');
  for (let i = 0; i < 5; i++) await flush();
  assert.is(t.callsOf('ns/a').length, 1);
  assert.is(t.metric.total('success'), 2);
  await t.shutdown();
});

test('1000 random enqueues over 20 keys with 8 workers: never two reconciles of a key at once, every key seen after its last enqueue', async () => {
  let seq = 0;
  const running = new Map<string, number>();
  const maxRunning = new Map<string, number>();
  const lastAdd = new Map<string, number>();
  const lastStart = new Map<string, number>();
  let peak = 0;
  const t = setup(
    async (r) => {
      const key = requestKey(r);
      lastStart.set(key, ++seq);
      running.set(key, (running.get(key) ?? 0) + 1);
      maxRunning.set(key, Math.max(maxRunning.get(key) ?? 0, running.get(key)!));
      peak = Math.max(peak, [...running.values()].reduce((a, b) => a + b, 0));
      await realClock.sleep(Math.random() * 2);
      running.set(key, running.get(key)! - 1);
      return {};
    },
    { maxConcurrentReconciles: 8 },
    realClock,
  );
  for (let i = 0; i < 1000; i++) {
    const key = `ns/k${Math.floor(Math.random() * 20)}`;
    lastAdd.set(key, ++seq);
    t.controller.enqueue(req(key.slice(3)));
    if (i % 10 === 0) await realClock.sleep(Math.random() * 2);
  }
  await until(() => [...lastAdd].every(([k, s]) => (lastStart.get(k) ?? 0) > s) && [...running.values()].every((n) => n === 0), 'all keys settled');
  assert.is(lastAdd.size, 20);
  assert.equal([...new Set(maxRunning.values())], [1], 'max concurrency per key');
  assert.ok(peak > 1 && peak <= 8, `workers ran in parallel within the limit (peak ${peak})`);
  assert.ok(t.calls.length < 1000, `events coalesced: ${t.calls.length} reconciles for 1000 enqueues`);
  await t.shutdown();
});

test('a failing key backs off 5, 10, 20, 40, 80 ms; success resets the backoff', async () => {
  const clock = new ManualClock();
  let failing = true;
  const t = setup(
    () => {
      if (failing) throw new Error('BareMetalHost not reachable');
      return {};
    },
    {},
    clock,
  );
  t.controller.enqueue(req('m'));
  await until(() => t.calls.length === 1, 'first reconcile');
  for (let ms = 0; ms < 155; ms++) {
    if (t.calls.length === 5) failing = false;
    await clock.advance(1);
    await flush();
  }
  const times = t.calls.map((c) => c.at);
  assert.equal(times, [0, 5, 15, 35, 75, 155]);
  assert.equal(times.slice(1).map((at, i) => at - times[i]!), [5, 10, 20, 40, 80]);
  assert.is(t.metric.errors(), 5);
  assert.is(t.metric.total('error'), 5);
  assert.is(t.metric.total('success'), 1);
  // After the success the next failure starts again at 5 ms.
  failing = true;
  t.controller.enqueue(req('m'));
  await until(() => t.calls.length === 7, 'new failure');
  await clock.advance(4);
  await flush();
  assert.is(t.calls.length, 7);
  await clock.advance(1);
  await until(() => t.calls.length === 8, 'retry after 5 ms');
  await t.shutdown();
});

test('requeueAfter: not reconciled before N ms, reconciled at N ms; counted as requeue_after, not error', async () => {
  const clock = new ManualClock();
  const t = setup((_r, _c, n) => (n === 1 ? { requeueAfterMs: 1000 } : {}), {}, clock);
  t.controller.enqueue(req('m'));
  await until(() => t.calls.length === 1, 'first reconcile');
  await clock.advance(999);
  await flush();
  assert.is(t.calls.length, 1);
  await clock.advance(1);
  await until(() => t.calls.length === 2, 'requeued reconcile');
  assert.is(t.calls[1]!.at, 1000);
  assert.is(t.metric.total('requeue_after'), 1);
  assert.is(t.metric.total('success'), 1);
  assert.is(t.metric.errors(), 0);
  await t.shutdown();
});

test('requeueAfter on the real clock: back within a small slack after N ms', async () => {
  const t = setup((_r, _c, n) => (n === 1 ? { requeueAfterMs: 50 } : {}), {}, realClock);
  t.controller.enqueue(req('m'));
  await until(() => t.calls.length === 2, 'requeued reconcile');
  const gap = t.calls[1]!.at - t.calls[0]!.at;
  assert.ok(gap >= 49, `not before 50 ms (gap ${gap.toFixed(1)} ms)`);
  assert.ok(gap < 50 + 50, `within 50 ms slack (gap ${gap.toFixed(1)} ms)`);
  await t.shutdown();
});

test('a terminal error is counted and logged but not retried; a wrapped one too', async () => {
  const clock = new ManualClock();
  const t = setup(
    (r) => {
      if (r.name === 'bad') throw new TerminalError('spec.image.url is empty');
      throw new Error('failed to patch Metal3Machine ns/wrapped', { cause: new TerminalError('invalid') });
    },
    {},
    clock,
  );
  t.controller.enqueue(req('bad'));
  t.controller.enqueue(req('wrapped'));
  await until(() => t.calls.length === 2, 'both reconciled');
  await clock.advance(10_000);
  await flush();
  assert.is(t.calls.length, 2, 'no retry');
  assert.is(t.metric.terminal(), 2);
  assert.is(t.metric.errors(), 2);
  assert.is(t.metric.total('error'), 2);
  const logged = t.lines.filter((l) => l.msg === 'Reconciler error');
  assert.is(logged.length, 2);
  assert.is(logged[0]!.terminal, true);
  assert.is(logged[0]!.error, 'TerminalError: spec.image.url is empty');
  await t.shutdown();
});

test('a retryable error is requeued with backoff and logged with the key', async () => {
  const clock = new ManualClock();
  const t = setup(() => Promise.reject(new Error('boom')), {}, clock);
  t.controller.enqueue(req('m'));
  await until(() => t.calls.length === 1, 'first');
  await clock.advance(5);
  await until(() => t.calls.length === 2, 'retried');
  const line = t.lines.find((l) => l.msg === 'Reconciler error')!;
  assert.equal([line.controller, line.namespace, line.name, line.level], ['metal3machine', 'ns', 'm', 'error']);
  await t.shutdown();
});

test('throwing a non-Error counts as a panic, is retried, and never kills the worker', async () => {
  const clock = new ManualClock();
  const thrown: unknown[] = ['a string', undefined, { code: 7 }];
  const registry = new Registry();
  const calls: string[] = [];
  // A plain (non-async) function that throws synchronously, to prove sync throws are caught too.
  const reconciler: ReconcileFn = (r) => {
    calls.push(r.name);
    if (r.name.startsWith('p')) throw thrown[Number(r.name.slice(1))];
    return Promise.resolve({});
  };
  const controller = new Controller({ name: 'panicky', reconciler, registry, clock });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  for (const name of ['p0', 'p1', 'p2', 'ok']) controller.enqueue({ name });
  await until(() => calls.includes('ok'), 'the single worker to reach ok');
  const c = (n: string, extra = {}) => (registry.counter(n, '', []) as Counter).get({ controller: 'panicky', ...extra });
  assert.is(c('controller_runtime_reconcile_panics_total'), 3);
  assert.is(c('controller_runtime_reconcile_errors_total'), 3);
  assert.is(c('controller_runtime_reconcile_total', { result: 'success' }), 1);
  await clock.advance(5);
  await until(() => calls.length === 7, 'panicked keys retried');
  stop.abort();
  await running;
});

test('a reconcile past its timeout sees its signal abort and is counted; the key stays busy until it returns', async () => {
  const clock = new ManualClock();
  const release = gate();
  const t = setup(
    async (r, ctx) => {
      if (r.name === 'stubborn') {
        await release.opened; // ignores the signal
        return {};
      }
      if (t.callsOf('ns/polite').length > 1) return {};
      await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)));
      return {};
    },
    { reconcileTimeoutMs: 100, maxConcurrentReconciles: 2 },
    clock,
  );
  t.controller.enqueue(req('polite'));
  t.controller.enqueue(req('stubborn'));
  await until(() => t.calls.length === 2, 'both started');
  await clock.advance(100);
  await until(() => t.metric.timeouts() === 1, 'polite timed out');
  assert.instance(t.calls[0]!.ctx.signal.reason, ReconcileTimeoutError);
  assert.is(t.metric.errors(), 1);
  t.controller.enqueue(req('stubborn'));
  await clock.advance(1000);
  await flush();
  assert.is(t.callsOf('ns/stubborn').length, 1, 'not reconciled again while the timed-out reconcile still runs');
  release.open();
  await until(() => t.callsOf('ns/stubborn').length === 2, 'stubborn re-run after it returned');
  assert.is(t.metric.timeouts(), 2);
  assert.is(t.metric.total('success') >= 1, true);
  await t.shutdown();
});

test('metrics: controller-runtime names, all four results pre-initialised, workers and reconcile time', async () => {
  const clock = new ManualClock();
  const busy = gate();
  const t = setup(
    async () => {
      await clock.sleep(250);
      await busy.opened;
      return {};
    },
    { maxConcurrentReconciles: 3 },
    clock,
  );
  const text = t.registry.render();
  for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
    assert.ok(text.includes(`controller_runtime_reconcile_total{controller="metal3machine",result="${result}"} 0`), result);
  }
  for (const name of ['errors', 'panics', 'timeouts']) {
    assert.ok(text.includes(`controller_runtime_reconcile_${name}_total{controller="metal3machine"} 0`), name);
  }
  assert.ok(text.includes('controller_runtime_terminal_reconcile_errors_total{controller="metal3machine"} 0'));
  assert.ok(text.includes('controller_runtime_max_concurrent_reconciles{controller="metal3machine"} 3'));
  assert.ok(text.includes('workqueue_depth{name="metal3machine",controller="metal3machine"} 0'));
  t.controller.enqueue(req('m'));
  await until(() => t.metric.active() === 1, 'a worker busy');
  await clock.advance(250);
  busy.open();
  await until(() => t.metric.active() === 0, 'worker idle again');
  const time = t.registry.histogram('controller_runtime_reconcile_time_seconds', '', [], []) as Histogram;
  assert.is(time.count({ controller: 'metal3machine' }), 1);
  assert.ok(time.render().includes('controller_runtime_reconcile_time_seconds_bucket{controller="metal3machine",le="0.3"} 1'));
  assert.ok(time.render().includes('controller_runtime_reconcile_time_seconds_bucket{controller="metal3machine",le="0.25"} 1'));
  assert.ok(time.render().includes('controller_runtime_reconcile_time_seconds_bucket{controller="metal3machine",le="0.2"} 0'));
  await t.shutdown();
});

test('each reconcile gets a fresh reconcile id and a logger carrying controller, namespace, name and reconcileID', async () => {
  const t = setup((_r, ctx) => {
    ctx.log.info('reconciling');
    return {};
  });
  t.controller.enqueue(req('a'));
  await until(() => t.calls.length === 1, 'a');
  t.controller.enqueue(req('a'));
  await until(() => t.calls.length === 2, 'a again');
  const [one, two] = t.calls;
  assert.match(one!.ctx.reconcileId, /^[0-9a-f-]{36}$/);
  assert.is.not(one!.ctx.reconcileId, two!.ctx.reconcileId);
  const line = t.lines.find((l) => l.msg === 'reconciling')!;
  assert.equal(
    [line.controller, line.namespace, line.name, line.reconcileID],
    ['metal3machine', 'ns', 'a', one!.ctx.reconcileId],
  );
  await t.shutdown();
});

test('stop: no new key is taken after the abort; start resolves once the in-flight reconcile ends', async () => {
  const busy = gate();
  const t = setup(async (r, ctx) => {
    if (r.name === 'slow') {
      assert.is(ctx.signal.aborted, false);
      await busy.opened;
      assert.is(ctx.signal.aborted, true, 'the reconcile sees the shutdown');
    }
    return {};
  });
  t.controller.enqueue(req('slow'));
  t.controller.enqueue(req('queued'));
  await until(() => t.calls.length === 1, 'slow started');
  t.stop.abort();
  t.controller.enqueue(req('late'));
  let resolved = false;
  void t.running.then(() => (resolved = true));
  for (let i = 0; i < 5; i++) await flush();
  assert.is(resolved, false, 'waits for the in-flight reconcile');
  busy.open();
  await t.running;
  assert.equal(t.calls.map((c) => c.key), ['ns/slow']);
  assert.is(t.metric.active(), 0);
});

test('a controller starts once; a signal aborted before start returns at once', async () => {
  const t = setup(() => ({}));
  await t.controller.start(new AbortController().signal).then(
    () => assert.unreachable('second start must fail'),
    (e: Error) => assert.match(e.message, /started more than once/),
  );
  await t.shutdown();
  const c = new Controller({ name: 'x', reconciler: () => Promise.resolve({}) });
  const aborted = new AbortController();
  aborted.abort();
  await c.start(aborted.signal);
  assert.is(c.needsLeaderElection, true);
});

test.run();
