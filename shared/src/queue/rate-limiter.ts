// How long a failed key waits before its next attempt. Same model as client-go's workqueue rate
// limiters: `when(key)` records one more failure and answers the delay, `forget(key)` clears the
// history once the key succeeds, `numRequeues(key)` tells how many failures are on record.
import { type Clock, realClock } from '../clock/clock.ts';

export interface RateLimiter {
  /** Records a failure of `key` and returns how many milliseconds it should wait before a retry. */
  when(key: string): number;
  /** Clears the failure history of `key` (called when it succeeds or is given up on). */
  forget(key: string): void;
  /** Failures of `key` since the last `forget`. */
  numRequeues(key: string): number;
}

/** client-go's per-item defaults: 5 ms, doubling, capped at 1000 s. */
export const DEFAULT_BASE_DELAY_MS = 5;
export const DEFAULT_MAX_DELAY_MS = 1_000_000;

/**
 * Per-item exponential backoff: the n-th consecutive failure of a key waits `baseMs * 2^(n-1)`,
 * never more than `maxMs`. Keys are independent: one broken object does not slow the others.
 */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(baseMs = DEFAULT_BASE_DELAY_MS, maxMs = DEFAULT_MAX_DELAY_MS) {
    if (!(baseMs > 0) || !(maxMs >= baseMs)) throw new RangeError(`backoff needs 0 < base (${baseMs}) <= max (${maxMs})`);
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2^failures overflows to Infinity long after the cap is reached; min() handles both.
    return Math.min(this.baseMs * 2 ** failures, this.maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * One token bucket shared by every key (client-go's `BucketRateLimiter`): `burst` retries go at once,
 * then `qps` per second. It caps the retry rate of the whole controller when many keys fail together
 * (an apiserver outage, say). It keeps no per-key history.
 */
export class BucketRateLimiter implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: { qps?: number; burst?: number; clock?: Clock } = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    if (!(this.qps > 0) || !(this.burst >= 1)) throw new RangeError(`token bucket needs qps > 0 and burst >= 1`);
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.burst;
    this.#last = this.#clock.now();
  }

  when(_key: string): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) * this.qps) / 1000);
    this.#last = now;
    // Reserve a token even when none is left: the debt is paid by waiting (golang.org/x/time/rate's Reserve).
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.qps;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** The worst (longest) answer of several limiters; failures are recorded in all of them. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.numRequeues(key)));
  }
}

/**
 * The controllers' default: per-item backoff only (5 ms → 1000 s), as controller-runtime's priority
 * queue. No overall bucket: the client's own QPS limit and the apiserver's priority-and-fairness
 * already protect the server, and a bucket delays unrelated keys behind a burst of failures.
 */
export function defaultItemRateLimiter(): RateLimiter {
  return new ItemExponentialFailureRateLimiter();
}

/**
 * client-go's `DefaultControllerRateLimiter`: per-item backoff combined with an overall token bucket
 * (10 qps, burst 100 unless told otherwise). Opt in through the controller's `rateLimiter` option.
 */
export function defaultControllerRateLimiter(options: { qps?: number; burst?: number; clock?: Clock } = {}): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(), new BucketRateLimiter(options));
}
