// The client-side limit with controller-runtime's meaning of `--kube-api-qps/--kube-api-burst`: every
// resource kind gets its own token bucket of `qps`/`burst` (controller-runtime gives each
// GroupVersionKind its own REST client, each with its own bucket), so a burst of host patches never
// queues a Secret read or an event. Which bucket a request spends from is bucketKeyOf's decision;
// this module only keeps the buckets, created on first use (a process talks to a handful of kinds,
// so the map stays that small).
import { type Clock, realClock } from '../clock/clock.ts';
import { bucketKeyOf } from './bucket-key.ts';
import { type RateLimiter, TokenBucketRateLimiter } from './rate-limiter.ts';

export class KindRateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, RateLimiter>();

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0)) throw new RangeError(`rate limiter: qps must be > 0, got ${qps}`);
    this.qps = qps;
    this.burst = burst;
    this.#clock = clock;
  }

  /** Resolves when a request to `path` may go: its kind's bucket had a token, or its slot came. */
  wait(path: string, signal?: AbortSignal): Promise<void> {
    return this.bucket(bucketKeyOf(path)).wait(signal);
  }

  /** The bucket under `key` (a bucketKeyOf result), full when first asked for. */
  bucket(key: string): RateLimiter {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucketRateLimiter(this.qps, this.burst, this.#clock);
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Keys of the buckets requests have used so far, sorted (metrics, tests). */
  keys(): string[] {
    return [...this.#buckets.keys()].sort();
  }
}

/** Per-kind buckets, or undefined when `qps <= 0` (no client-side limit: priority and fairness decides). */
export function newKindRateLimiter(qps: number, burst: number, clock?: Clock): KindRateLimiter | undefined {
  return qps > 0 ? new KindRateLimiter(qps, burst, clock) : undefined;
}
