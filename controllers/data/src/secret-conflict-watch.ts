// While a Metal3Data is blocked by a Secret of its rendered name that it does not control (planted,
// or another living object's: issue 21 point 0), a watch of that one Secret (field selector on its
// name) wakes it when the Secret goes or changes, and ends as soon as the Metal3Data is no longer
// blocked. Such Secrets carry no label of ours, so the label-selected rendered-Secret watch cannot see
// them, and an unselected watch of every Secret is what this controller refuses to hold. Nothing of
// the Secret is kept: an event only wakes the Metal3Data, whose reconcile reads the Secret again.
// A list or watch that fails is counted in `data_secret_conflict_watch_errors_total{verb,code}` and,
// once it is refused or keeps failing (list-watch-health.ts), logged at error level with verb and
// resource; the blocked Metal3Data meanwhile still shows its conflict and is retried every 30 s.
import type { Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import type { WatcherTuning } from '@metal3-ts/shared/cache/informer-factory';
import { describeFailure, isProblem, ListWatchHealth } from '@metal3-ts/shared/cache/list-watch-health';
import { watcher } from '@metal3-ts/shared/cache/watcher';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import { type Logger, silentLogger } from '@metal3-ts/shared/log/logger';
import type { Counter, Registry } from '@metal3-ts/shared/metrics/registry';
import { type Request, requestKey } from '@metal3-ts/shared/reconcile/reconcile';

interface NameWatch {
  readonly stop: AbortController;
  /** The blocked Metal3Data, by request key. */
  readonly waiting: Map<string, Request>;
}

export class SecretConflictWatch implements EventSource {
  readonly kind = 'Secret';
  readonly #client: Client;
  readonly #tuning: WatcherTuning;
  readonly #failures: Counter | undefined;
  readonly #watches = new Map<string, NameWatch>();
  /** Request key → the Secret keys (`<namespace>/<name>`) blocking it. */
  readonly #blocking = new Map<string, Set<string>>();
  #enqueue: ((request: Request) => void) | undefined;
  #log: Logger = silentLogger;

  /** `tuning`: the informer factory's watcher settings (timeouts, backoff), so these watches end as its do. */
  constructor(client: Client, options: { readonly registry?: Registry | undefined; readonly tuning?: WatcherTuning | undefined } = {}) {
    this.#client = client;
    this.#tuning = options.tuning ?? {};
    this.#failures = options.registry?.counter(
      'data_secret_conflict_watch_errors_total',
      'Failed list or watch requests of the watch of a Secret blocking a Metal3Data, by HTTP status code (0: no response)',
      ['verb', 'code'],
    );
  }

  waitForSync(): Promise<void> {
    return Promise.resolve();
  }

  subscribe(enqueue: (request: Request) => void, log: Logger): () => void {
    this.#enqueue = enqueue;
    this.#log = log;
    return () => {
      this.#enqueue = undefined;
      for (const watch of this.#watches.values()) watch.stop.abort();
      this.#watches.clear();
      this.#blocking.clear();
    };
  }

  /** Number of Secrets watched now (for tests: no watch outlives its conflict). */
  get size(): number {
    return this.#watches.size;
  }

  /** `request` is blocked by exactly the Secrets `names` of its namespace now (none: not blocked). */
  blockedBy(request: Request, names: readonly string[]): void {
    const key = requestKey(request);
    const next = new Set(names.map((name) => `${request.namespace ?? ''}/${name}`));
    for (const secret of this.#blocking.get(key) ?? []) if (!next.has(secret)) this.#release(secret, key);
    if (next.size === 0) this.#blocking.delete(key);
    else this.#blocking.set(key, next);
    if (!this.#enqueue) return;
    for (const secret of next) {
      let watch = this.#watches.get(secret);
      if (!watch) {
        watch = { stop: new AbortController(), waiting: new Map() };
        this.#watches.set(secret, watch);
        void this.#run(secret, watch);
      }
      watch.waiting.set(key, request);
    }
  }

  #release(secret: string, key: string): void {
    const watch = this.#watches.get(secret);
    if (!watch) return;
    watch.waiting.delete(key);
    if (watch.waiting.size > 0) return;
    watch.stop.abort();
    this.#watches.delete(secret);
  }

  async #run(secret: string, watch: NameWatch): Promise<void> {
    const [namespace, name] = secret.split('/') as [string, string];
    const api = this.#client.api(SecretResource, namespace);
    let first = true;
    const health = new ListWatchHealth();
    const onStep = (verb: 'list' | 'watch', error?: unknown): void => {
      if (error === undefined) return void health.succeeded(verb);
      const failure = health.failed(verb, error);
      this.#failures?.inc({ verb, code: String(failure.code) });
      if (isProblem(failure)) {
        this.#log.error('Secret conflict watch cannot list or watch', {
          resource: 'secrets',
          verb,
          code: failure.code,
          secret,
          reason: describeFailure('secrets', failure),
        });
      }
    };
    try {
      for await (const event of watcher(api, watch.stop.signal, { ...this.#tuning, fieldSelector: `metadata.name=${name}`, log: this.#log, onStep })) {
        if (event.type === 'bookmark') continue;
        // The first list shows the Secret as the reconcile just judged it, unless it went meanwhile.
        const unchanged = first && event.type === 'replace' && event.objects.length > 0;
        first = false;
        if (unchanged) continue;
        for (const request of watch.waiting.values()) this.#enqueue?.(request);
      }
    } catch (error) {
      this.#log.error('Secret conflict watch stopped', { secret, error: String(error) });
    }
  }
}
