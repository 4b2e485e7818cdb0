// The decisions of Lease leader election as pure functions, with client-go's semantics: a lease is
// free when it has no holder or when its holder has not changed it for longer than its duration,
// measured on OUR clock from the moment WE saw it change (never by comparing our clock with the
// renewTime another machine wrote: clocks drift, observation times do not lie).
import type { Lease } from '@metal3-ts/generated/coordination.k8s.io/v1';

export type LeaseSpec = NonNullable<Lease['spec']>;

/** Timing of an election. client-go's defaults: 15 s / 10 s / 2 s. */
export interface LeaseTimings {
  /** How long a follower waits after the last observed change before taking the lease over. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps retrying a failed renewal before it gives leadership up. */
  readonly renewDeadlineMs: number;
  /** Interval between acquire attempts and between renewals. */
  readonly retryPeriodMs: number;
}

export const defaultLeaseTimings: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** client-go's JitterFactor: acquire attempts wait retryPeriod × (1 + [0, 1.2)). */
export const JITTER_FACTOR = 1.2;

/**
 * How long one renewal attempt may take when `remainingMs` of the renew deadline are left: half the
 * renew deadline (at least a retry period), never past the deadline. An attempt stuck on a dead
 * connection then leaves time for another on a fresh one, instead of using up the whole deadline.
 */
export function renewAttemptBudgetMs(remainingMs: number, t: LeaseTimings): number {
  return Math.max(0, Math.min(remainingMs, Math.max(t.retryPeriodMs, t.renewDeadlineMs / 2)));
}

export class LeaderElectionConfigError extends Error {
  override name = 'LeaderElectionConfigError';
}

/**
 * Rejects timings that would let two leaders overlap: the leader must give up (renew deadline) before
 * followers may take over (lease duration), and must get more than one jittered retry in before that.
 */
export function validateTimings(t: LeaseTimings): void {
  if (!(t.retryPeriodMs > 0)) throw new LeaderElectionConfigError(`retry period must be positive (got ${t.retryPeriodMs} ms)`);
  if (t.leaseDurationMs <= t.renewDeadlineMs) {
    throw new LeaderElectionConfigError(
      `lease duration (${t.leaseDurationMs} ms) must be greater than the renew deadline (${t.renewDeadlineMs} ms)`,
    );
  }
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs) {
    throw new LeaderElectionConfigError(
      `renew deadline (${t.renewDeadlineMs} ms) must be greater than ${JITTER_FACTOR} × retry period (${t.retryPeriodMs} ms)`,
    );
  }
  if (t.leaseDurationMs < 1000) throw new LeaderElectionConfigError(`lease duration must be at least 1 s (got ${t.leaseDurationMs} ms)`);
}

/** The record fields that make up "a change" of the lease, as a comparable string. */
export function recordFingerprint(spec: LeaseSpec | undefined): string {
  const s = spec ?? {};
  return JSON.stringify([s.holderIdentity ?? '', s.leaseDurationSeconds ?? 0, s.acquireTime ?? '', s.renewTime ?? '', s.leaseTransitions ?? 0]);
}

/**
 * Whether another candidate holds the lease: it names a holder other than `identity` and we saw it
 * change less than its lease duration ago. `observedAtMs` and `nowMs` come from the local clock.
 */
export function isHeldByOther(spec: LeaseSpec | undefined, identity: string, observedAtMs: number, nowMs: number): boolean {
  const holder = spec?.holderIdentity ?? '';
  if (holder === '' || holder === identity) return false;
  const durationMs = (spec?.leaseDurationSeconds ?? 0) * 1000;
  return observedAtMs + durationMs > nowMs;
}

/**
 * The record to write when `identity` takes or keeps the lease: a renewal keeps acquireTime and the
 * transition count; a takeover starts a new term and counts one more transition.
 */
export function claimedSpec(previous: LeaseSpec | undefined, identity: string, leaseDurationMs: number, wallNow: Date): LeaseSpec {
  const now = microTime(wallNow);
  const renewing = (previous?.holderIdentity ?? '') === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime: renewing ? (previous?.acquireTime ?? now) : now,
    renewTime: now,
    leaseTransitions: renewing ? (previous?.leaseTransitions ?? 0) : previous ? (previous.leaseTransitions ?? 0) + 1 : 0,
  };
}

/**
 * The record a leader writes when it steps down: no holder and a one-second duration, so the next
 * candidate takes over at its next attempt instead of waiting out the full lease.
 */
export function releasedSpec(previous: LeaseSpec | undefined, wallNow: Date): LeaseSpec {
  const now = microTime(wallNow);
  return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: previous?.leaseTransitions ?? 0 };
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the apiserver parses it. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
