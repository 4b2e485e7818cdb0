// The manager in process: runnable ordering, leader gating, graceful shutdown budget, lease release
// and loss (against an in-memory Lease with apiserver concurrency rules), and the HTTP endpoints.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as http from 'node:http';
import { ApiError } from '@metal3-ts/generated';
import { MemoryLeaseLock } from '../leader/memory-lease-lock.ts';
import { Registry } from '../metrics/registry.ts';
import { LeaderElectionLostError, Manager, type ManagerOptions, RunnableFailedError, ShutdownTimeoutError } from './manager.ts';
import type { Runnable } from './runnable.ts';

const test = suite('manager');
const timings = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

async function rejects(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A runnable that records its life and takes `drainMs` to finish after its signal aborts. */
function recorder(name: string, needsLeaderElection: boolean, events: string[], drainMs = 0): Runnable & { signal?: AbortSignal } {
  const r: Runnable & { signal?: AbortSignal } = {
    name,
    needsLeaderElection,
    async start(signal) {
      r.signal = signal;
      events.push(`start ${name}`);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      if (drainMs > 0) await sleep(drainMs);
      events.push(`stop ${name}`);
    },
  };
  return r;
}

function get(address: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(path, `http://${address.replace(/^\[::\]|^0\.0\.0\.0/, '127.0.0.1')}`);
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      })
      .on('error', reject);
  });
}

test('without election: informers and controllers start at once; controllers stop (and drain) before informers', async () => {
  const events: string[] = [];
  const m = new Manager();
  m.add(recorder('informers', false, events));
  m.add(recorder('controller', true, events, 100));
  const stop = new AbortController();
  const done = m.start(stop.signal);
  await m.started;
  assert.ok(m.isLeader());
  assert.equal(events, ['start informers', 'start controller']);
  stop.abort();
  await done;
  assert.equal(events, ['start informers', 'start controller', 'stop controller', 'stop informers']);
});

test('a runnable added after start starts at once', async () => {
  const events: string[] = [];
  const m = new Manager();
  const stop = new AbortController();
  const done = m.start(stop.signal);
  await m.started;
  m.add(recorder('late', true, events));
  assert.equal(events, ['start late']);
  stop.abort();
  await done;
  assert.throws(() => m.add(recorder('too-late', false, events)), /stopped/);
});

test('with election: only the leader runs controllers; a clean stop releases the lease and the follower takes over at once', async () => {
  const lock = new MemoryLeaseLock();
  const eventsA: string[] = [];
  const eventsB: string[] = [];
  const options: ManagerOptions = { leaderElection: { lock, ...timings } };
  const a = new Manager(options);
  a.add(recorder('informers', false, eventsA));
  a.add(recorder('controller', true, eventsA, 150));
  const stopA = new AbortController();
  const doneA = a.start(stopA.signal);
  await until(() => a.isLeader());
  const b = new Manager(options);
  b.add(recorder('informers', false, eventsB));
  b.add(recorder('controller', true, eventsB));
  const stopB = new AbortController();
  const doneB = b.start(stopB.signal);
  await sleep(1300); // past a lease duration: A's renewals keep B out
  assert.equal(eventsB, ['start informers']);
  assert.not.ok(b.isLeader());

  // While A's controller drains, A still holds (and renews) the lease.
  let holderWhileDraining = '';
  setTimeout(() => (holderWhileDraining = lock.current?.spec?.holderIdentity ?? ''), 100);
  const stoppedAt = performance.now();
  stopA.abort();
  await doneA;
  assert.is(holderWhileDraining, a.identity);
  assert.equal(eventsA.slice(-2), ['stop controller', 'stop informers']);
  await until(() => b.isLeader(), 1000);
  const took = performance.now() - stoppedAt;
  assert.ok(took < 150 + 2.2 * timings.retryPeriodMs + 150, `follower took over ${took.toFixed(0)} ms after the stop`);
  assert.equal(eventsB, ['start informers', 'start controller']);
  stopB.abort();
  await doneB;
});

test('shutdown past the budget rejects with ShutdownTimeoutError naming the runnable, and keeps the lease', async () => {
  const lock = new MemoryLeaseLock();
  const m = new Manager({ gracefulShutdownTimeoutMs: 200, leaderElection: { lock, ...timings } });
  const stuck: Runnable = { name: 'stuck-controller', needsLeaderElection: true, start: () => new Promise(() => {}) };
  m.add(stuck);
  const stop = new AbortController();
  const done = m.start(stop.signal);
  await until(() => m.isLeader());
  const t = performance.now();
  stop.abort();
  const error = await rejects(done);
  const took = performance.now() - t;
  assert.instance(error, ShutdownTimeoutError);
  assert.equal((error as ShutdownTimeoutError).pending, ['stuck-controller']);
  assert.ok(took >= 190 && took < 600, `gave up after ${took.toFixed(0)} ms`);
  assert.is(lock.current?.spec?.holderIdentity, m.identity, 'lease not released while work may still be running');
});

test('a failing runnable stops the manager, which rejects with RunnableFailedError', async () => {
  const events: string[] = [];
  const m = new Manager();
  m.add(recorder('informers', false, events));
  m.add({ name: 'broken', needsLeaderElection: true, start: () => Promise.reject(new Error('boom')) });
  const error = await rejects(m.start(new AbortController().signal));
  assert.instance(error, RunnableFailedError);
  assert.is((error as RunnableFailedError).runnable, 'broken');
  assert.match((error as Error).message, /boom/);
  assert.equal(events, ['start informers', 'stop informers']);
});

test('losing the lease aborts the controllers and rejects at once with LeaderElectionLostError', async () => {
  const lock = new MemoryLeaseLock();
  const events: string[] = [];
  const m = new Manager({ leaderElection: { lock, ...timings } });
  const controller = recorder('controller', true, events, 5000); // would drain for 5 s: not waited for
  m.add(controller);
  const done = m.start(new AbortController().signal);
  await until(() => m.isLeader());
  lock.failWith = new ApiError(503, undefined, { verb: 'PUT', path: '/lease' });
  const t = performance.now();
  const error = await rejects(done);
  assert.instance(error, LeaderElectionLostError);
  assert.ok(controller.signal?.aborted);
  assert.ok(performance.now() - t < timings.retryPeriodMs + timings.renewDeadlineMs + 300);
  assert.not.ok(m.isLeader());
});

test('probes and metrics: readyz follows its checks, verbose lists them, metrics use the 0.0.4 text format', async () => {
  const registry = new Registry();
  registry.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']).inc({
    controller: 'x',
    result: 'success',
  });
  const m = new Manager({ registry, metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: 'localhost:0' });
  let synced = false;
  m.addHealthCheck('ping', () => true);
  m.addReadyCheck('informers', () => synced);
  m.addReadyCheck('throws', () => {
    throw new Error('x');
  });
  const stop = new AbortController();
  const done = m.start(stop.signal);
  await m.started;
  const probes = m.addresses.healthProbe!;
  const metrics = m.addresses.metrics!;
  assert.is.not(probes, metrics);
  assert.equal(await get(probes, '/healthz'), { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
  assert.is((await get(probes, '/healthz?verbose')).body, '[+]ping ok\nhealthz check passed\n');
  const notReady = await get(probes, '/readyz');
  assert.is(notReady.status, 500);
  assert.is(notReady.body, '[-]informers failed: reason withheld\n[-]throws failed: reason withheld\nreadyz check failed\n');
  assert.is((await get(probes, '/readyz?exclude=throws')).status, 500);
  synced = true;
  assert.is((await get(probes, '/readyz?exclude=throws')).body, 'ok');
  assert.is((await get(probes, '/readyz/informers')).status, 200);
  assert.is((await get(probes, '/readyz/nope')).status, 404);
  assert.is((await get(probes, '/metrics')).status, 404);
  const scraped = await get(metrics, '/metrics');
  assert.is(scraped.status, 200);
  assert.is(scraped.type, 'text/plain; version=0.0.4; charset=utf-8');
  assert.match(scraped.body, /controller_runtime_reconcile_total\{controller="x",result="success"\} 1/);
  stop.abort();
  await done;
  assert.instance(await rejects(get(probes, '/healthz')), Error, 'server closed');
});

test('metrics and probes can share one address; a port in use fails start', async () => {
  const m = new Manager({ metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '127.0.0.1:0' });
  const stop = new AbortController();
  const done = m.start(stop.signal);
  await m.started;
  assert.is(m.addresses.metrics, m.addresses.healthProbe);
  assert.is((await get(m.addresses.metrics!, '/metrics')).status, 200);
  assert.is((await get(m.addresses.metrics!, '/readyz')).body, 'ok');
  const clash = new Manager({ metricsBindAddress: m.addresses.metrics! });
  assert.match(String(await rejects(clash.start(new AbortController().signal))), /EADDRINUSE|in use/i);
  stop.abort();
  await done;
});

test.run();
