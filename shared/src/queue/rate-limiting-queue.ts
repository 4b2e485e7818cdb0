// The queue a controller uses: the work queue plus delayed adds (`addAfter`, for requeueAfter) and
// rate-limited adds (`addRateLimited`, for failures), on the Clock port so tests drive time by hand.
//
// Delays: a key waits at most once. When it is asked for at several times, the earliest wins; a plain
// `add` is "now", so it overtakes a pending `addAfter` (an event must wake a key that only waits for
// something, such as a free BareMetalHost).
//
// Backoff (the one deliberate difference from client-go, see ecosystem.md 8.4 item 2): while a key
// is backing off after a failure, nothing else decides when it runs. `add` and `addAfter` of that key
// are folded into the pending retry, and a run that was pending when the failure was recorded is
// folded in too. client-go instead runs the key at once on every `add` (kubernetes/kubernetes#112325),
// so a failing reconcile whose own status writes produce events retries at event speed and its
// backoff never backs off. The failure count is never reset by events either: only `forget` (called
// on success) resets it. The cost: a real change to an object that is backing off waits for the
// retry, at most the limiter's cap (1000 s by default).
import { type Clock, realClock } from '../clock/clock.ts';
import { DeadlineHeap } from './deadline-heap.ts';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.ts';
import { defaultItemRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './work-queue.ts';

export interface RateLimitingQueueOptions {
  readonly clock?: Clock;
  /** Default: per-item exponential backoff 5 ms → 1000 s, no overall bucket. */
  readonly rateLimiter?: RateLimiter;
  readonly metrics?: WorkQueueMetrics;
  readonly unfinishedWorkUpdatePeriodMs?: number;
}

interface Waiting {
  readonly at: number;
  readonly seq: number;
  /** Set by `addRateLimited`: the key is backing off and only this deadline decides when it runs. */
  readonly backoff: boolean;
}

export class RateLimitingQueue {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #metrics: WorkQueueMetrics;
  readonly #core: WorkQueue;
  readonly #waiting = new Map<string, Waiting>();
  readonly #deadlines = new DeadlineHeap();
  #seq = 0;
  #timer: { readonly at: number; readonly abort: AbortController } | undefined;

  constructor(options: RateLimitingQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#limiter = options.rateLimiter ?? defaultItemRateLimiter();
    this.#metrics = options.metrics ?? noopWorkQueueMetrics;
    this.#core = new WorkQueue({
      clock: this.#clock,
      metrics: this.#metrics,
      ...(options.unfinishedWorkUpdatePeriodMs === undefined ? {} : { unfinishedWorkUpdatePeriodMs: options.unfinishedWorkUpdatePeriodMs }),
    });
  }

  /** Makes `key` pending now, unless it is backing off (then the pending retry covers it). */
  add(key: string): void {
    if (this.#core.shuttingDown) return;
    const waiting = this.#waiting.get(key);
    if (waiting?.backoff) return;
    if (waiting) this.#waiting.delete(key);
    this.#core.add(key);
  }

  /** Makes `key` pending after `ms`; an earlier pending time for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#core.shuttingDown) return;
    this.#metrics.retry();
    if (!(ms > 0)) return this.add(key);
    const waiting = this.#waiting.get(key);
    if (waiting?.backoff || this.#core.isPending(key)) return;
    const at = this.#clock.now() + ms;
    if (waiting && waiting.at <= at) return;
    this.#wait(key, at, false);
  }

  /**
   * Records a failure of `key` and makes it pending after the rate limiter's delay. Any run of the key
   * that was pending already is folded into this retry.
   */
  addRateLimited(key: string): void {
    if (this.#core.shuttingDown) return;
    const delay = this.#limiter.when(key);
    this.#metrics.retry();
    this.#core.withdraw(key);
    this.#waiting.delete(key);
    if (!(delay > 0)) return this.#core.add(key);
    this.#wait(key, this.#clock.now() + delay, true);
  }

  /** Clears the failure history of `key`: its next failure starts again at the base delay. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** Failures of `key` since the last `forget`. */
  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /** True while `key` waits for its retry after a failure. */
  isBackingOff(key: string): boolean {
    return this.#waiting.get(key)?.backoff === true;
  }

  /** See `WorkQueue.get`. */
  get(): Promise<string | undefined> {
    return this.#core.get();
  }

  done(key: string): void {
    this.#core.done(key);
  }

  /** Keys ready to be handed out now. */
  get length(): number {
    return this.#core.length;
  }

  /** Keys waiting for a delay or a backoff to pass. */
  get delayed(): number {
    return this.#waiting.size;
  }

  get processing(): number {
    return this.#core.processing;
  }

  get shuttingDown(): boolean {
    return this.#core.shuttingDown;
  }

  /** Refuses new keys and drops the delayed ones (their timers stop); queued keys can still be taken. */
  shutDown(): void {
    this.#timer?.abort.abort();
    this.#timer = undefined;
    this.#waiting.clear();
    this.#deadlines.clear();
    this.#core.shutDown();
  }

  /** Shuts down, then resolves once no key is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    return this.#core.shutDownWithDrain();
  }

  #wait(key: string, at: number, backoff: boolean): void {
    const seq = ++this.#seq;
    this.#waiting.set(key, { at, seq, backoff });
    this.#deadlines.push({ at, key, seq });
    this.#arm();
  }

  /** Drops superseded heap entries from the top: a key rescheduled or promoted leaves its old entry behind. */
  #earliest(): { at: number; key: string; seq: number } | undefined {
    for (;;) {
      const top = this.#deadlines.peek();
      if (!top || this.#waiting.get(top.key)?.seq === top.seq) return top;
      this.#deadlines.pop();
    }
  }

  // One timer for the whole queue, set for the earliest deadline; re-armed when an earlier one arrives.
  #arm(): void {
    const next = this.#earliest();
    if (this.#timer && next && this.#timer.at <= next.at) return;
    this.#timer?.abort.abort();
    this.#timer = undefined;
    if (!next) return;
    const timer = { at: next.at, abort: new AbortController() };
    this.#timer = timer;
    this.#clock.sleep(next.at - this.#clock.now(), timer.abort.signal).then(
      () => {
        if (this.#timer === timer) this.#timer = undefined;
        this.#fire();
      },
      () => {},
    );
  }

  #fire(): void {
    const now = this.#clock.now();
    for (let next = this.#earliest(); next && next.at <= now; next = this.#earliest()) {
      this.#deadlines.pop();
      this.#waiting.delete(next.key);
      this.#core.add(next.key);
    }
    this.#arm();
  }
}
