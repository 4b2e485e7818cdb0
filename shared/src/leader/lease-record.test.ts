import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  claimedSpec,
  defaultLeaseTimings,
  isHeldByOther,
  LeaderElectionConfigError,
  microTime,
  recordFingerprint,
  releasedSpec,
  renewAttemptBudgetMs,
  validateTimings,
} from './lease-record.ts';

const test = suite('lease record decisions');
const t0 = new Date('2026-03-01T10:00:00.123Z');

test('timings: defaults and the test settings pass; overlapping terms are refused', () => {
  validateTimings(defaultLeaseTimings);
  validateTimings({ leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 });
  assert.throws(
    () => validateTimings({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 }),
    (e: unknown) => e instanceof LeaderElectionConfigError && /lease duration/.test(e.message),
  );
  assert.throws(() => validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 2400, retryPeriodMs: 2000 }), /1.2 × retry period/);
  assert.throws(() => validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }), /retry period/);
});

test('a renewal attempt gets half the renew deadline (at least a retry period), never past the deadline', () => {
  const table: [remainingMs: number, timings: typeof defaultLeaseTimings, expected: number][] = [
    [10_000, defaultLeaseTimings, 5000],
    [7000, defaultLeaseTimings, 5000],
    [3000, defaultLeaseTimings, 3000],
    [0, defaultLeaseTimings, 0],
    [-5, defaultLeaseTimings, 0],
    [1500, { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 }, 750],
    [5000, { leaseDurationMs: 6000, renewDeadlineMs: 5000, retryPeriodMs: 4000 }, 4000],
  ];
  for (const [remaining, timings, expected] of table) assert.is(renewAttemptBudgetMs(remaining, timings), expected, `${remaining} ms left`);
});

test('a lease with another holder is held until its duration has passed since WE observed the change', () => {
  const spec = { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: '1999-01-01T00:00:00.000000Z' };
  // The renewTime is ancient by our wall clock, but we only saw it change 1 s ago: still held.
  assert.ok(isHeldByOther(spec, 'me', 1000, 2000));
  assert.ok(isHeldByOther(spec, 'me', 1000, 15_999));
  assert.not.ok(isHeldByOther(spec, 'me', 1000, 16_000));
});

test('an empty or own lease is never held by another', () => {
  assert.not.ok(isHeldByOther(undefined, 'me', 0, 0));
  assert.not.ok(isHeldByOther({ holderIdentity: '', leaseDurationSeconds: 15 }, 'me', 0, 0));
  assert.not.ok(isHeldByOther({ holderIdentity: null, leaseDurationSeconds: 15 }, 'me', 0, 0));
  assert.not.ok(isHeldByOther({ holderIdentity: 'me', leaseDurationSeconds: 15 }, 'me', 0, 0));
});

test('a renewal keeps acquireTime and transitions; a takeover counts one more transition', () => {
  const first = claimedSpec(undefined, 'a', 15_000, t0);
  assert.equal(first, {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: '2026-03-01T10:00:00.123000Z',
    renewTime: '2026-03-01T10:00:00.123000Z',
    leaseTransitions: 0,
  });
  const later = new Date(t0.getTime() + 2000);
  const renewed = claimedSpec(first, 'a', 15_000, later);
  assert.is(renewed.acquireTime, first.acquireTime);
  assert.is(renewed.renewTime, microTime(later));
  assert.is(renewed.leaseTransitions, 0);
  const taken = claimedSpec(renewed, 'b', 15_000, later);
  assert.is(taken.holderIdentity, 'b');
  assert.is(taken.acquireTime, microTime(later));
  assert.is(taken.leaseTransitions, 1);
});

test('a released lease has no holder and a one-second duration', () => {
  const released = releasedSpec({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 3 }, t0);
  assert.is(released.holderIdentity, '');
  assert.is(released.leaseDurationSeconds, 1);
  assert.is(released.leaseTransitions, 3);
});

test('fingerprints differ exactly when the record differs', () => {
  const a = claimedSpec(undefined, 'a', 15_000, t0);
  assert.is(recordFingerprint(a), recordFingerprint({ ...a }));
  assert.is.not(recordFingerprint(a), recordFingerprint({ ...a, renewTime: microTime(new Date(t0.getTime() + 1)) }));
  assert.is(recordFingerprint(undefined), recordFingerprint({}));
});

test('microTime has six fractional digits', () => {
  assert.match(microTime(t0), /^2026-03-01T10:00:00\.\d{6}Z$/);
});

test.run();
