// Waiting for eventual consistency in tests: poll until a probe returns a value, and on timeout say
// what was awaited, the probe's last error and (optionally) what the code under test logged.
import { setTimeout as delay } from 'node:timers/promises';

export const sleep = (ms: number): Promise<void> => delay(ms);

export interface EventuallyOptions {
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  /** Lines added to the timeout message, e.g. the warnings a controller under test logged. */
  readonly explain?: () => readonly string[];
}

/**
 * Polls `probe` until it returns something other than undefined (a throw counts as "not yet") and
 * returns that value; fails after the timeout (default 10 s). A number is shorthand for the timeout.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: number | EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 10_000, pollMs = 50, explain } = typeof options === 'number' ? { timeoutMs: options } : options;
  const end = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > end) {
      const logged = explain?.() ?? [];
      const cause = last ? ` (last error: ${String(last)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}${logged.length ? `; logged:\n${logged.join('\n')}` : ''}`);
    }
    await sleep(pollMs);
  }
}

/** The signature of `eventually`. */
export type Eventually = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, options?: number | EventuallyOptions) => Promise<T>;

/**
 * `eventually` with other defaults (a longer timeout for a slow scene, a shorter poll): for a file or
 * module whose waits all share them. A caller's timeout (or options) still wins.
 */
export function eventuallyWith(defaults: EventuallyOptions): Eventually {
  return <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, options: number | EventuallyOptions = {}): Promise<T> =>
    eventually(what, probe, { ...defaults, ...(typeof options === 'number' ? { timeoutMs: options } : options) });
}

/** Waits until more than `after` reconciles have run and then none for `quietMs`. */
export async function settled(counter: { reconciles(): number }, after: number, quietMs = 400, options: EventuallyOptions = {}): Promise<void> {
  await eventually('a reconcile', () => (counter.reconciles() > after ? true : undefined), options);
  let seen = counter.reconciles();
  for (;;) {
    await sleep(quietMs);
    const now = counter.reconciles();
    if (now === seen) return;
    seen = now;
  }
}
