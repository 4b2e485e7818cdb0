// The engine behind a controller: sources feed keys into a rate-limiting queue, workers take keys,
// call the reconciler and map its outcome to the queue in one switch (controller-runtime's
// `reconcileHandler`). Built by `controllerFor(...).build()`; run by the manager as a Runnable.
//
// Guarantees:
// - no two reconciles of one key at once, however many workers (the queue's processing set);
// - workers start only after every source has synced, so a reconcile never sees a half-filled cache;
// - a reconcile that throws anything, even a non-Error, costs that key a backoff, never a worker;
// - once the signal aborts, no new key is taken; `start` resolves when the in-flight reconciles end;
// - a reconcile that failed because the apiserver refused a request (refusal.ts: Forbidden, Invalid, …)
//   leaves a Warning event `RequestRefused` on the reconciled object naming verb and resource, when the
//   controller was given an event recorder: the one place every controller's refused writes surface.
import { type Clock, realClock } from '../clock/clock.ts';
import type { KubeObject } from '@metal3-ts/generated';
import type { EventRecorder } from '../events/recorder.ts';
import type { Runnable } from '../manager/runnable.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { Registry } from '../metrics/registry.ts';
import { workQueueMetrics } from '../queue/metrics.ts';
import { RateLimitingQueue } from '../queue/rate-limiting-queue.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { type ReconcileContext, type ReconcileFn, type Reconciler, type Request, requestFromKey, requestKey } from '../reconcile/reconcile.ts';
import { type ControllerMetrics, controllerMetrics } from './metrics.ts';
import { outcomeOfResult, outcomeOfThrow, type ReconcileOutcome, ReconcileTimeoutError } from './outcome.ts';
import { describeRefusal, refusalOf } from './refusal.ts';
import type { EventSource } from './source.ts';

export interface ControllerOptions {
  /** Workers reconciling different keys in parallel (default 1, as controller-runtime). */
  readonly maxConcurrentReconciles?: number;
  /** Default: per-item exponential backoff 5 ms → 1000 s (see queue/rate-limiter.ts). */
  readonly rateLimiter?: RateLimiter;
  /**
   * Aborts the reconcile's signal after this long and counts `controller_runtime_reconcile_timeouts_total`.
   * The reconcile is not abandoned: its key stays busy until it returns, so one key never runs twice at once.
   */
  readonly reconcileTimeoutMs?: number;
}

/** Where refused requests are reported: the recorder, and the reconciled object of a request (from the cache). */
export interface FailureEvents {
  readonly recorder: EventRecorder;
  readonly objectOf: (request: Request) => Readonly<KubeObject> | undefined;
}

/** The reason of the Warning event a refused request leaves on the reconciled object. */
export const REQUEST_REFUSED = 'RequestRefused';

export interface ControllerConfig {
  readonly name: string;
  /** The reconciled kind, for logs (`controllerKind`); `group` likewise (`controllerGroup`). */
  readonly kind?: string;
  readonly group?: string;
  readonly reconciler: Reconciler | ReconcileFn;
  readonly sources?: readonly EventSource[];
  readonly registry?: Registry;
  readonly log?: Logger;
  readonly clock?: Clock;
  readonly options?: ControllerOptions;
  readonly failureEvents?: FailureEvents;
}

export class Controller implements Runnable {
  readonly name: string;
  readonly needsLeaderElection = true;
  readonly maxConcurrentReconciles: number;
  readonly #reconcile: ReconcileFn;
  readonly #sources: readonly EventSource[];
  readonly #queue: RateLimitingQueue;
  readonly #metrics: ControllerMetrics;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #timeoutMs: number | undefined;
  readonly #failureEvents: FailureEvents | undefined;
  #started = false;

  constructor(config: ControllerConfig) {
    const options = config.options ?? {};
    this.name = config.name;
    this.maxConcurrentReconciles = options.maxConcurrentReconciles ?? 1;
    const reconciler = config.reconciler;
    this.#reconcile = typeof reconciler === 'function' ? reconciler : (request, ctx) => reconciler.reconcile(request, ctx);
    this.#sources = config.sources ?? [];
    this.#clock = config.clock ?? realClock;
    this.#timeoutMs = options.reconcileTimeoutMs;
    this.#failureEvents = config.failureEvents;
    const registry = config.registry ?? new Registry();
    this.#queue = new RateLimitingQueue({
      clock: this.#clock,
      metrics: workQueueMetrics(registry, config.name),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
    this.#metrics = controllerMetrics(registry, config.name, this.maxConcurrentReconciles);
    this.#log = (config.log ?? silentLogger).with({
      controller: config.name,
      ...(config.group === undefined ? {} : { controllerGroup: config.group }),
      ...(config.kind === undefined ? {} : { controllerKind: config.kind }),
    });
  }

  /** Asks for a reconcile of `request` (coalesced with any pending one). Ignored once stopped. */
  enqueue(request: Request): void {
    this.#queue.add(requestKey(request));
  }

  /** Runs until `signal` aborts, then resolves once in-flight reconciles have finished. Once only. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} was started more than once`);
    this.#started = true;
    const stop = () => this.#queue.shutDown();
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    const unsubscribe = this.#sources.map((s) => s.subscribe((request) => this.enqueue(request), this.#log));
    try {
      this.#log.info('Starting EventSources', { sources: this.#sources.map((s) => s.kind) });
      try {
        await Promise.all(this.#sources.map((s) => s.waitForSync(signal)));
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      this.#log.info('Starting workers', { workerCount: this.maxConcurrentReconciles });
      await Promise.all(Array.from({ length: this.maxConcurrentReconciles }, () => this.#work(signal)));
      this.#log.info('All workers finished');
    } finally {
      for (const u of unsubscribe) u();
      signal.removeEventListener('abort', stop);
      stop();
    }
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.#queue.get();
      if (key === undefined) return;
      // After the abort the queue still hands out what was queued: let it go without reconciling.
      if (!signal.aborted) await this.#process(key, signal);
      this.#queue.done(key);
    }
  }

  async #process(key: string, stopping: AbortSignal): Promise<void> {
    const request = requestFromKey(key);
    const reconcileId = crypto.randomUUID();
    const log = this.#log.with({ namespace: request.namespace, name: request.name, reconcileID: reconcileId });
    const deadline = this.#deadline(stopping);
    const context: ReconcileContext = { signal: deadline.signal, reconcileId, log };
    const started = this.#clock.now();
    this.#metrics.activeWorkers(1);
    let outcome: ReconcileOutcome;
    try {
      // Called inside the try so a synchronous throw is classified like a rejection.
      outcome = outcomeOfResult(await this.#reconcile(request, context));
    } catch (thrown) {
      outcome = outcomeOfThrow(thrown);
    } finally {
      deadline.clear();
      this.#metrics.activeWorkers(-1);
      this.#metrics.reconcileTime(Math.max(0, this.#clock.now() - started) / 1000);
    }
    if (deadline.expired()) this.#metrics.timeout();
    this.#settle(key, outcome, log, stopping);
  }

  /** The one place where an outcome turns into queue operations, metrics and logs. */
  #settle(key: string, outcome: ReconcileOutcome, log: Logger, stopping: AbortSignal): void {
    switch (outcome.kind) {
      case 'success': {
        this.#queue.forget(key);
        const after = outcome.result.requeueAfterMs;
        if (after === undefined) {
          this.#metrics.reconciled('success');
          return;
        }
        this.#queue.addAfter(key, after);
        this.#metrics.reconciled('requeue_after');
        log.debug('Reconcile done, requeueing', { requeueAfterMs: after });
        return;
      }
      case 'terminal': {
        this.#queue.forget(key);
        this.#metrics.terminalError();
        this.#metrics.error();
        this.#metrics.reconciled('error');
        const refused = this.#reportRefusal(key, outcome.error);
        log.error('Reconciler error', { error: outcome.error, terminal: true, ...(refused ? { refused } : {}) });
        return;
      }
      case 'panic':
        this.#metrics.panic();
        log.error('Observed a panic', { panic: outcome.error.message });
        return this.#retry(key, outcome.error, log, stopping);
      case 'error':
        return this.#retry(key, outcome.error, log, stopping);
    }
  }

  #retry(key: string, error: Error, log: Logger, stopping: AbortSignal): void {
    this.#queue.addRateLimited(key);
    this.#metrics.error();
    this.#metrics.reconciled('error');
    // An error caused by the shutdown itself (an aborted request) is expected, not an incident.
    if (stopping.aborted) return log.info('Reconcile interrupted by shutdown', { error });
    const refused = this.#reportRefusal(key, error);
    log.error('Reconciler error', { error, retries: this.#queue.numRequeues(key), ...(refused ? { refused } : {}) });
  }

  /** A Warning event on the object when the apiserver refused one of the reconcile's requests; returns the description. */
  #reportRefusal(key: string, error: Error): string | undefined {
    const refusal = refusalOf(error);
    if (!refusal) return undefined;
    const text = describeRefusal(refusal);
    const object = this.#failureEvents?.objectOf(requestFromKey(key));
    if (object) this.#failureEvents?.recorder.warning(object, REQUEST_REFUSED, text);
    return text;
  }

  /** The reconcile's signal: the manager's, plus the optional timeout on the controller's clock. */
  #deadline(stopping: AbortSignal): { signal: AbortSignal; clear(): void; expired(): boolean } {
    const timeoutMs = this.#timeoutMs;
    if (timeoutMs === undefined) return { signal: stopping, clear() {}, expired: () => false };
    // One controller per reconcile, linked to the manager's signal by a listener removed in clear():
    // nothing accumulates on the long-lived manager signal.
    const combined = new AbortController();
    const timer = new AbortController();
    const onStop = () => combined.abort(stopping.reason);
    if (stopping.aborted) onStop();
    else stopping.addEventListener('abort', onStop, { once: true });
    let expired = false;
    this.#clock.sleep(timeoutMs, timer.signal).then(
      () => {
        expired = true;
        combined.abort(new ReconcileTimeoutError(timeoutMs));
      },
      () => {},
    );
    const clear = () => {
      timer.abort();
      stopping.removeEventListener('abort', onStop);
    };
    return { signal: combined.signal, clear, expired: () => expired };
  }
}
