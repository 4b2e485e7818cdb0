// Leader election against an in-memory lease with apiserver concurrency rules, on the real clock with
// short timings (lease 1 s, renew deadline 0.6 s, retry 0.1 s).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '@metal3-ts/generated';
import { Registry } from '../metrics/registry.ts';
import { LeaderElector, type LeaderElectorOptions, type StoppedReason } from './leader-elector.ts';
import { MemoryLeaseLock } from './memory-lease-lock.ts';
import { candidateIdentity } from './identity.ts';

const test = suite('leader elector');
const timings = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<StoppedReason | undefined>;
  startedAt: number | undefined;
  stopped: StoppedReason[];
}

function candidate(lock: MemoryLeaseLock, identity: string, extra: Partial<LeaderElectorOptions> = {}): Candidate {
  const c: Partial<Candidate> & { stopped: StoppedReason[] } = { stopped: [], startedAt: undefined };
  c.elector = new LeaderElector({
    lock,
    identity,
    ...timings,
    onStartedLeading: () => (c.startedAt = performance.now()),
    onStoppedLeading: (reason) => c.stopped.push(reason),
    ...extra,
  });
  c.stop = new AbortController();
  c.done = c.elector.run(c.stop.signal);
  return c as Candidate;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

test('the first candidate creates the lease and becomes leader; the second waits while it renews', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a');
  await until(() => a.elector.isLeader());
  const b = candidate(lock, 'b');
  await sleep(1500); // longer than the lease duration: renewals keep it held
  assert.ok(a.elector.isLeader());
  assert.not.ok(b.elector.isLeader());
  assert.is(b.elector.leader(), 'a');
  assert.is(lock.current?.spec?.holderIdentity, 'a');
  assert.ok(lock.writes >= 10, `renewed every retry period (${lock.writes} writes)`);
  a.stop.abort();
  b.stop.abort();
  assert.is(await a.done, 'released');
  assert.is(await b.done, undefined);
  assert.equal(a.stopped, ['released']);
  assert.equal(b.stopped, []);
});

test('two candidates racing for an absent lease: exactly one wins', async () => {
  for (let round = 0; round < 5; round++) {
    const lock = new MemoryLeaseLock();
    const cs = ['a', 'b', 'c', 'd'].map((id) => candidate(lock, id));
    await until(() => cs.some((c) => c.elector.isLeader()));
    await sleep(250);
    assert.is(cs.filter((c) => c.elector.isLeader()).length, 1);
    for (const c of cs) c.stop.abort();
    await Promise.all(cs.map((c) => c.done));
  }
});

test('a renewal that hangs (dead connection) is abandoned at half the renew deadline and retried: the leader keeps leading', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a');
  await until(() => a.elector.isLeader());
  const writes = lock.writes;
  lock.hangNext = 1;
  await until(() => lock.hangNext === 0 && lock.writes > writes + 2);
  assert.ok(a.elector.isLeader());
  assert.equal(a.stopped, [], 'one hung attempt did not cost the term');
  a.stop.abort();
  assert.is(await a.done, 'released');
});

test('a leader whose every renewal hangs stops leading (lost) within the renew deadline', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a');
  await until(() => a.elector.isLeader());
  const hungAt = performance.now();
  lock.hangNext = 1000;
  // Polling keeps the event loop alive: a hung request waits only on AbortSignal.timeout, which
  // does not hold a process open.
  await until(() => a.stopped.length > 0);
  assert.is(await a.done, 'lost');
  const tookMs = performance.now() - hungAt;
  assert.ok(tookMs < timings.retryPeriodMs + timings.renewDeadlineMs + 300, `lost after ${tookMs.toFixed(0)} ms`);
  assert.equal(a.stopped, ['lost']);
  assert.not.ok(a.elector.isLeader());
});

test('a leader that stops without releasing is replaced about one lease duration later', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a', { releaseOnCancel: false });
  await until(() => a.elector.isLeader());
  const b = candidate(lock, 'b');
  await sleep(300);
  const crashedAt = performance.now();
  a.stop.abort();
  assert.is(await a.done, 'stopped');
  await until(() => b.elector.isLeader(), 3000);
  const took = (b.startedAt ?? 0) - crashedAt;
  assert.ok(took >= 700 && took <= timings.leaseDurationMs + 2.2 * timings.retryPeriodMs + 150, `takeover after ${took.toFixed(0)} ms`);
  assert.is(lock.current?.spec?.leaseTransitions, 1);
  b.stop.abort();
  await b.done;
});

test('a leader that releases on stop is replaced at the next attempt', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a');
  await until(() => a.elector.isLeader());
  const b = candidate(lock, 'b');
  await sleep(300);
  const stoppedAt = performance.now();
  a.stop.abort();
  assert.is(await a.done, 'released');
  assert.is(lock.current?.spec?.holderIdentity, '');
  assert.is(lock.current?.spec?.leaseDurationSeconds, 1);
  await until(() => b.elector.isLeader(), 2000);
  const took = (b.startedAt ?? 0) - stoppedAt;
  assert.ok(took < 2.2 * timings.retryPeriodMs + 100, `takeover after ${took.toFixed(0)} ms`);
  b.stop.abort();
  await b.done;
});

test('release survives a stale resourceVersion (a renewal cut short by the stop may have landed)', async () => {
  const lock = new MemoryLeaseLock();
  const a = candidate(lock, 'a');
  await until(() => a.elector.isLeader());
  const lease = lock.current!;
  await lock.update({ ...lease, metadata: { ...lease.metadata, labels: { landed: 'late' } } }, new AbortController().signal);
  a.stop.abort();
  assert.is(await a.done, 'released');
  assert.is(lock.current?.spec?.holderIdentity, '');
});

test('renewals failing past the renew deadline end the term as lost and abort the leading signal', async () => {
  const lock = new MemoryLeaseLock();
  let leading: AbortSignal | undefined;
  const registry = new Registry();
  const a = candidate(lock, 'a', { onStartedLeading: (s) => (leading = s), registry });
  await until(() => a.elector.isLeader());
  assert.match(registry.render(), /leader_election_master_status\{name="test-lease"\} 1/);
  lock.failWith = new ApiError(503, undefined, { verb: 'PUT', path: '/x' });
  const failedAt = performance.now();
  const reason = await a.done;
  const after = performance.now() - failedAt;
  assert.is(reason, 'lost');
  assert.equal(a.stopped, ['lost']);
  assert.ok(leading?.aborted);
  assert.not.ok(a.elector.isLeader());
  assert.ok(after >= timings.renewDeadlineMs - 50 && after <= timings.retryPeriodMs + timings.renewDeadlineMs + 200, `lost after ${after.toFixed(0)} ms`);
  assert.match(registry.render(), /leader_election_master_status\{name="test-lease"\} 0/);
  assert.match(registry.render(), /leader_election_slowpath_total\{name="test-lease"\} [1-9]/);
});

test('a fast-path renewal that conflicts falls back to the slow path and counts it', async () => {
  const lock = new MemoryLeaseLock();
  const registry = new Registry();
  const a = candidate(lock, 'a', { registry });
  await until(() => a.elector.isLeader());
  // Someone (an admin, say) touches the lease: our cached resourceVersion goes stale.
  const lease = lock.current!;
  await lock.update({ ...lease, metadata: { ...lease.metadata, labels: { touched: 'yes' } } }, new AbortController().signal);
  await sleep(300);
  assert.ok(a.elector.isLeader());
  assert.match(registry.render(), /leader_election_slowpath_total\{name="test-lease"\} 1\n/);
  a.stop.abort();
  await a.done;
});

test('invalid timings and an empty identity are refused at construction', () => {
  const lock = new MemoryLeaseLock();
  assert.throws(() => new LeaderElector({ lock, identity: 'a', leaseDurationMs: 1000, renewDeadlineMs: 1000 }), /renew deadline/);
  assert.throws(() => new LeaderElector({ lock, identity: '' }), /identity/);
});

test('identities are hostname plus a random suffix, unique per call', () => {
  const a = candidateIdentity('host-1');
  assert.match(a, /^host-1_[0-9a-f-]{36}$/);
  assert.is.not(a, candidateIdentity('host-1'));
  assert.ok(candidateIdentity().length > 37);
});

test.run();
