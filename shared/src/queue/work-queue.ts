// The core of client-go's work queue: keys wait in FIFO order, a key is pending at most once (adding it
// again while it waits is a no-op), and a key a worker is processing is never handed to a second
// worker: adding it during processing marks it dirty, and it is queued again only on `done(key)`.
//
// Guarantees:
// - per-key coalescing: any number of `add(k)` while `k` waits yield one `get()` of `k`;
// - no two workers hold the same key between `get()` and `done()`;
// - a key added while processing is handed out again after `done()` (no event is lost).
// Shutdown stops new adds; `get()` still hands out what is queued, then answers `undefined`.
import { type Clock, realClock } from '../clock/clock.ts';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.ts';

export interface WorkQueueOptions {
  readonly clock?: Clock;
  readonly metrics?: WorkQueueMetrics;
  /** How often the in-flight gauges are refreshed while work is in progress (client-go: 500 ms). */
  readonly unfinishedWorkUpdatePeriodMs?: number;
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #metrics: WorkQueueMetrics;
  readonly #updatePeriodMs: number;
  /** Pending keys nobody is processing, in the order they became pending (a Set keeps insertion order). */
  readonly #queue = new Set<string>();
  /** Pending keys that are being processed: queued again on `done`. */
  readonly #dirtyProcessing = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiters: ((key: string | undefined) => void)[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  #ticker: AbortController | undefined;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics ?? noopWorkQueueMetrics;
    this.#updatePeriodMs = options.unfinishedWorkUpdatePeriodMs ?? 500;
  }

  /** Makes `key` pending, unless it already is or the queue is shutting down. */
  add(key: string): void {
    if (this.#shuttingDown || this.isPending(key)) return;
    this.#metrics.add(key, this.#clock.now());
    if (this.#processing.has(key)) {
      this.#dirtyProcessing.add(key);
      return;
    }
    this.#enqueue(key);
  }

  /**
   * The next key to process; waits while the queue is empty. `undefined` means the queue has shut
   * down and nothing is left. Every key returned must be passed to `done` exactly once.
   */
  get(): Promise<string | undefined> {
    const key = this.#queue.values().next();
    if (!key.done) {
      this.#queue.delete(key.value);
      this.#start(key.value);
      return Promise.resolve(key.value);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Ends the processing of `key`; if it was added meanwhile, it is queued again now. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    const now = this.#clock.now();
    this.#metrics.done(key, now);
    this.#metrics.updateUnfinishedWork(now);
    if (this.#dirtyProcessing.delete(key)) this.#enqueue(key);
    if (this.#processing.size === 0) {
      this.#ticker?.abort();
      this.#ticker = undefined;
      for (const resolve of this.#drainWaiters.splice(0)) resolve();
    }
  }

  /**
   * Drops a pending `key` (queued, or marked to run again after processing) without running it.
   * The rate-limited queue uses it to fold a pending run into a backoff. Returns whether it was pending.
   */
  withdraw(key: string): boolean {
    if (!this.#queue.delete(key) && !this.#dirtyProcessing.delete(key)) return false;
    this.#metrics.withdraw(key);
    return true;
  }

  /** True while `key` waits to be handed out (or to be re-queued once its processing ends). */
  isPending(key: string): boolean {
    return this.#queue.has(key) || this.#dirtyProcessing.has(key);
  }

  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  /** Keys ready to be handed out now. */
  get length(): number {
    return this.#queue.size;
  }

  get processing(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Refuses new keys and wakes idle `get()` callers with `undefined`. Queued keys can still be taken. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const resolve of this.#waiters.splice(0)) resolve(undefined);
  }

  /** Shuts down, then resolves once no key is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #enqueue(key: string): void {
    const waiter = this.#waiters.shift();
    if (!waiter) {
      this.#queue.add(key);
      return;
    }
    this.#start(key);
    waiter(key);
  }

  #start(key: string): void {
    this.#processing.add(key);
    const now = this.#clock.now();
    this.#metrics.get(key, now);
    this.#metrics.updateUnfinishedWork(now);
    if (!this.#ticker) this.#tick();
  }

  // Keeps workqueue_unfinished_work_seconds and _longest_running_processor_seconds moving while a
  // reconcile runs, so a stuck reconcile shows on a dashboard before it finishes.
  #tick(): void {
    const ticker = new AbortController();
    this.#ticker = ticker;
    const loop = async () => {
      while (!ticker.signal.aborted) {
        await this.#clock.sleep(this.#updatePeriodMs, ticker.signal);
        this.#metrics.updateUnfinishedWork(this.#clock.now());
      }
    };
    loop().catch(() => {});
  }
}
