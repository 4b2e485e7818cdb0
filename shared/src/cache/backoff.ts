// Retry pacing for the watcher: exponential with jitter, capped, and forgiven after a healthy
// stretch. A watcher never gives up (a stopped informer is a silently dead controller), so the cap
// bounds how long recovery can lag behind an apiserver that comes back.
import { type Clock, jitter } from '../clock/clock.ts';

export interface BackoffOptions {
  /** First delay. */
  readonly initialMs?: number;
  /** Largest delay. */
  readonly maxMs?: number;
  /** Without a failure for this long the next delay starts from `initialMs` again. */
  readonly resetAfterMs?: number;
  /** Fraction of each delay that is randomised away, so many clients do not retry in step. */
  readonly jitter?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialMs: 100, maxMs: 30_000, resetAfterMs: 120_000, jitter: 0.5 };

export class Backoff {
  readonly #options: Required<BackoffOptions>;
  readonly #clock: Clock;
  readonly #random: () => number;
  #attempt = 0;
  #lastFailureAt: number | undefined;

  constructor(clock: Clock, options: BackoffOptions = {}, random: () => number = Math.random) {
    this.#options = { ...DEFAULT_BACKOFF, ...options };
    this.#clock = clock;
    this.#random = random;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.#clock.now();
    if (this.#lastFailureAt !== undefined && now - this.#lastFailureAt >= this.#options.resetAfterMs) this.#attempt = 0;
    this.#lastFailureAt = now;
    const { initialMs, maxMs } = this.#options;
    const ms = Math.min(maxMs, initialMs * 2 ** Math.min(this.#attempt, 52));
    this.#attempt++;
    return jitter(ms, this.#options.jitter, this.#random);
  }

  /** The attempt count since the last reset (0 when healthy). */
  get attempt(): number {
    return this.#attempt;
  }
}
