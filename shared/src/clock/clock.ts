// Time as a port: the work queue, backoff, leader election and informers take a Clock so tests can
// drive time by hand instead of sleeping.

export interface Clock {
  /** Milliseconds, monotonic within the process. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock that only moves when told to: `advance(ms)` fires every sleep that falls due. */
export class ManualClock implements Clock {
  #now = 0;
  #sleepers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper = { at: this.#now + Math.max(0, ms), resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward and resolves the sleeps that are due, in order of their deadlines. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#now = Math.max(this.#now, due.at);
      this.#sleepers = this.#sleepers.filter((s) => s !== due);
      due.resolve();
      // Let the woken task run (and maybe sleep again) before the next deadline fires.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.#now = target;
  }

  /** How many sleeps are pending: lets a test wait until the code under test is parked. */
  get pending(): number {
    return this.#sleepers.length;
  }
}

/** Full jitter between `ms * (1 - fraction)` and `ms`: spreads retries of many clients apart. */
export function jitter(ms: number, fraction = 0.2, random: () => number = Math.random): number {
  return ms * (1 - fraction * random());
}
