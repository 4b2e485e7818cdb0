// The one "write, and on a refused precondition re-read and try again" loop of the project. Every
// optimistic write (a resourceVersion lock, a JSON Patch `test` guard) goes through it, so the stop
// rules are stated once:
//   - the write succeeds, or the plan says there is nothing (left) to write → its value;
//   - the object is gone (404, at the write or at the re-read) → `gone` (undefined), unless the
//     caller asks for 404s to be thrown (`notFoundThrows`: it judges a missing object itself);
//   - any error that is not a refused precondition → thrown at once (the worker loop's backoff owns it);
//   - still refused after `attempts` writes → RetryExhaustedError (a transient error: the worker loop
//     retries the whole reconcile with backoff, it never spins here).
// Re-reads go to the server, not the cache: a cache that has not seen the winner's write would refuse again.
// A caller racing writers that rewrite the same object on every pass (replicas without leader
// election, the status of a busy object) asks for a `backoff` before each re-read, so the other
// writer's pass can finish instead of both re-reading into each other's next write.
import { isConflict, isInvalid, isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Clock, realClock } from '../clock/clock.ts';

/** A 409 (stale resourceVersion) — the default precondition failure. */
export const isStale = (error: unknown): boolean => isConflict(error);
/** A 409, or a 422 from a failed JSON Patch `test` op (the guard of a guarded patch). */
export const isStaleOrGuardFailed = (error: unknown): boolean => isConflict(error) || isInvalid(error);

export class RetryExhaustedError extends Error {
  override name = 'RetryExhaustedError';
  readonly what: string;
  readonly attempts: number;
  constructor(what: string, attempts: number, cause: unknown) {
    super(`${what}: still refused after ${attempts} attempts (the object kept changing)`, { cause });
    this.what = what;
    this.attempts = attempts;
  }
}

export interface RetryOnConflictOptions<T> {
  /** What is being written, for the exhaustion error: `Metal3Machine ns/name: recording its host`. */
  readonly what: string;
  /** Reads the current object from the server; undefined when it is gone. */
  readonly reread: () => Promise<T | undefined>;
  /** Writes tried before giving up; default 5. */
  readonly attempts?: number;
  /** Which errors mean "re-read and try again"; default: 409 Conflict only. */
  readonly retryable?: (error: unknown) => boolean;
  /** A 404 at the write or the re-read is thrown instead of meaning gone; default false. */
  readonly notFoundThrows?: boolean;
  /** Waits before each re-read: `initialMs`, times `factor` each time, ± `jitter` (a fraction); default none. */
  readonly backoff?: ConflictBackoff;
  /** For the backoff's waits; default the real clock. */
  readonly clock?: Clock;
}

export interface ConflictBackoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly jitter: number;
}

/** The wait before re-read `attempt` (1: after the first refusal); `random` in [0, 1). */
export function backoffMs(backoff: ConflictBackoff, attempt: number, random: number): number {
  const base = backoff.initialMs * backoff.factor ** (attempt - 1);
  return Math.max(0, Math.round(base * (1 + backoff.jitter * (2 * random - 1))));
}

/**
 * Runs `write(current)` starting from `initial`, re-reading after each refused precondition.
 * Returns what `write` returned, or undefined once the object is gone.
 */
export async function retryOnConflict<T, R>(
  initial: T,
  write: (current: T, attempt: number) => Promise<R>,
  options: RetryOnConflictOptions<T>,
): Promise<R | undefined> {
  const attempts = options.attempts ?? 5;
  const retryable = options.retryable ?? isStale;
  const gone = (error: unknown): boolean => isNotFound(error) && options.notFoundThrows !== true;
  let current = initial;
  for (let attempt = 1;; attempt++) {
    try {
      return await write(current, attempt);
    } catch (error) {
      if (gone(error)) return undefined;
      if (!retryable(error)) throw error;
      if (attempt >= attempts) throw new RetryExhaustedError(options.what, attempts, error);
    }
    if (options.backoff) await (options.clock ?? realClock).sleep(backoffMs(options.backoff, attempt, Math.random()));
    let fresh: T | undefined;
    try {
      fresh = await options.reread();
    } catch (error) {
      if (gone(error)) return undefined;
      throw error;
    }
    if (fresh === undefined) return undefined;
    current = fresh;
  }
}
