// Client-side rate limiting, client-go's token bucket: `burst` requests may go at once, then one
// every 1/qps seconds (the client keeps one per resource kind: kind-rate-limiter.ts). Each caller
// reserves its slot when it arrives, so waiters leave in arrival order (FIFO) and a crowd of
// reconciles cannot starve an early one.
import { type Clock, realClock } from '../clock/clock.ts';

export interface RateLimiter {
  readonly qps: number;
  readonly burst: number;
  /** Resolves when the caller may send; rejects with the signal's reason if it aborts first. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Takes a token if one is free right now; never waits. */
  tryAccept(): boolean;
  /** Tokens free right now; below zero, that many slots are already promised to waiters. */
  tokens(): number;
}

/** Bucket state: `tokens` goes negative while callers hold reservations for future slots. */
export interface BucketState {
  readonly tokens: number;
  /** Clock time (ms) the tokens were last counted at. */
  readonly at: number;
}

/** The bucket refilled up to `now`: qps tokens a second, never above burst. */
export function refill(state: BucketState, now: number, qps: number, burst: number): BucketState {
  if (now <= state.at) return state;
  return { tokens: Math.min(burst, state.tokens + ((now - state.at) * qps) / 1000), at: now };
}

/** Reserves one token at `now`: the new state and how long the caller must wait for its slot. */
export function reserve(state: BucketState, now: number, qps: number, burst: number): { state: BucketState; waitMs: number } {
  const refilled = refill(state, now, qps, burst);
  const tokens = refilled.tokens - 1;
  return { state: { tokens, at: refilled.at }, waitMs: tokens >= 0 ? 0 : (-tokens / qps) * 1000 };
}

export class TokenBucketRateLimiter implements RateLimiter {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  #state: BucketState;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0)) throw new RangeError(`rate limiter: qps must be > 0, got ${qps}`);
    this.qps = qps;
    // client-go refuses burst < 1 with a positive qps; one request at a time is the useful reading.
    this.burst = Math.max(1, Math.floor(burst));
    this.#clock = clock;
    this.#state = { tokens: this.burst, at: clock.now() };
  }

  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const { state, waitMs } = reserve(this.#state, this.#clock.now(), this.qps, this.burst);
    this.#state = state;
    if (waitMs <= 0) return;
    try {
      await this.#clock.sleep(waitMs, signal);
    } catch (error) {
      // Hand the unused slot back so an aborted caller does not slow everyone behind it.
      const now = refill(this.#state, this.#clock.now(), this.qps, this.burst);
      this.#state = { tokens: Math.min(this.burst, now.tokens + 1), at: now.at };
      throw error;
    }
  }

  tryAccept(): boolean {
    const now = refill(this.#state, this.#clock.now(), this.qps, this.burst);
    if (now.tokens < 1) {
      this.#state = now;
      return false;
    }
    this.#state = { tokens: now.tokens - 1, at: now.at };
    return true;
  }

  tokens(): number {
    return refill(this.#state, this.#clock.now(), this.qps, this.burst).tokens;
  }
}
