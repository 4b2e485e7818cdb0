// An informer ties the stages together: the watcher's list/watch events are frozen, applied to the
// ObjectStore, handed to subscribers as CacheEvents, and settle the read-your-writes overlay. Readers
// get the overlay view (`store`), subscribers the real changes.
//
// Guarantees:
// - Subscribers see changes in watch order, one call per change, after the store has applied it. A
//   relist shows up as adds, updates and synthesised deletes (nothing for unchanged objects).
// - A subscriber added after objects arrived first gets an `add` for each of them (synchronously,
//   inside `subscribe`), so late subscribers miss nothing and see no duplicates.
// - Own writes (noteWrite/noteDelete) change what reads return until the watch catches up; they never
//   produce events. The watch's event for the write still reaches subscribers when it arrives.
// - A throwing subscriber is logged and does not stop the informer or other subscribers.
// - A list or watch that keeps failing or is refused (list-watch-health.ts) is logged at error level
//   with verb and resource on every failed attempt, and `problems()` names it until it works again.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { type Clock, realClock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { resourceName } from '../meta/resource-name.ts';
import { deepFreeze } from './freeze.ts';
import { ObjectStore } from './object-store.ts';
import { describeFailure, isProblem, ListWatchHealth, type ListWatchVerb, type VerbFailure } from './list-watch-health.ts';
import { ReadYourWrites } from './read-your-writes.ts';
import { type CacheTransform, stripManagedFields } from './transform.ts';
import type { CacheEvent, IndexFn, Informer, ObjectKey, Store } from './types.ts';
import { type ListWatchSource, type RestartReason, watcher, type WatcherEvent, type WatcherOptions } from './watcher.ts';

export interface SharedInformerOptions<T extends KubeObject = KubeObject> extends Omit<WatcherOptions, 'clock' | 'log' | 'onRestart' | 'onStep'> {
  /** Only objects of this namespace are cached (the source must be bound to it too). */
  readonly namespace?: string;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** Observers for metrics: the cached object count after each change, and each watcher restart. */
  readonly onSize?: (size: number) => void;
  readonly onRestart?: (reason: RestartReason, error?: unknown) => void;
  /** Observer for metrics: each failed list or watch, with its HTTP status (0: no response). */
  readonly onListWatchError?: (verb: ListWatchVerb, code: number) => void;
  /** Applied to every object before it is cached (default: drop managedFields). */
  readonly transform?: CacheTransform<T>;
  /**
   * Applied to a copy of each of this process's own writes before it is noted (default: none): a
   * projected or selected informer's own transform, so a noted write is cached as the watch will
   * cache it. Not `transform`, which may also hold a read view: a write is already in the shape the
   * controllers read.
   */
  readonly noted?: CacheTransform<T>;
}

type Handler<T extends KubeObject> = (event: CacheEvent<T>) => void;

export class SharedInformer<T extends KubeObject> implements Informer<T> {
  readonly descriptor: ResourceDescriptor<T>;
  readonly #source: ListWatchSource<T>;
  readonly #options: SharedInformerOptions<T>;
  readonly #ingest: (object: T) => Readonly<T>;
  readonly #log: Logger;
  readonly #objects: ObjectStore<T>;
  readonly #view: ReadYourWrites<T>;
  readonly #handlers = new Set<Handler<T>>();
  readonly #synced: Promise<void>;
  readonly #health = new ListWatchHealth();
  /** `plural.group`, as RBAC and error messages name the resource. */
  readonly #resource: string;
  #markSynced!: () => void;
  #hasSynced = false;
  #running = false;
  /** The last resourceVersion the watch delivered (list, event or bookmark). */
  #streamRv: string | undefined;

  constructor(source: ListWatchSource<T>, descriptor: ResourceDescriptor<T>, options: SharedInformerOptions<T> = {}) {
    this.#source = source;
    const transform = options.transform ?? stripManagedFields;
    this.#ingest = (object) => deepFreeze(transform(object));
    this.descriptor = descriptor;
    this.#resource = resourceName(descriptor.plural, descriptor.group);
    this.#options = options;
    this.#log = (options.log ?? silentLogger).with({ informer: descriptor.plural, ...(descriptor.group ? { group: descriptor.group } : {}) });
    this.#objects = new ObjectStore<T>((index, object, error) =>
      this.#log.error('index function threw; object left out of the index', { index, name: object.metadata.name, error: String(error) })
    );
    this.#view = new ReadYourWrites<T>(this.#objects);
    this.#synced = new Promise((resolve) => (this.#markSynced = resolve));
  }

  get store(): Store<T> {
    return this.#view;
  }

  get lastResourceVersion(): string | undefined {
    return this.#streamRv;
  }

  addIndex(name: string, fn: IndexFn<T>): void {
    this.#objects.addIndex(name, fn);
  }

  hasIndex(name: string): boolean {
    return this.#objects.hasIndex(name);
  }

  subscribe(handler: Handler<T>): () => void {
    const wrapped: Handler<T> = (event) => handler(event);
    this.#handlers.add(wrapped);
    for (const object of this.#objects.list()) this.#deliver(wrapped, { type: 'add', object });
    return () => this.#handlers.delete(wrapped);
  }

  hasSynced(): boolean {
    return this.#hasSynced;
  }

  /** Why this informer cannot keep its cache current (refused or repeatedly failing list/watch); empty when it can. */
  problems(): string[] {
    return this.#health.problems().map((f) => describeFailure(this.#resource, f));
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#hasSynced) return Promise.resolve();
    if (!signal) return this.#synced;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#synced.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  noteWrite(object: T): void {
    if (!this.#inScope(object.metadata.namespace)) return;
    const noted = this.#options.noted;
    // A copy: the writer keeps the object as the apiserver answered it.
    this.#view.noteWrite(noted ? noted(structuredClone(object)) : object, this.#streamRv);
  }

  noteDelete(key: ObjectKey): void {
    if (!this.#inScope(key.namespace)) return;
    this.#view.noteDelete(key);
  }

  /** Lists and watches until `signal` aborts; resolves then. Runs at most once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer for ${this.descriptor.plural} is already running`);
    this.#running = true;
    const { onSize, onRestart, onListWatchError, ...watcherOptions } = this.#options;
    const events = watcher(this.#source, signal, {
      ...watcherOptions,
      clock: this.#options.clock ?? realClock,
      log: this.#log,
      onRestart: (reason, error) => onRestart?.(reason, error),
      onStep: (verb, error) => (error === undefined ? this.#stepWorked(verb) : this.#stepFailed(verb, error, onListWatchError)),
    });
    for await (const event of events) {
      this.#apply(event);
      onSize?.(this.#objects.size);
    }
  }

  #stepFailed(verb: ListWatchVerb, error: unknown, observe?: (verb: ListWatchVerb, code: number) => void): void {
    const failure = this.#health.failed(verb, error);
    observe?.(verb, failure.code);
    if (isProblem(failure)) {
      this.#log.error('informer cannot keep its cache current', {
        resource: this.#resource,
        verb,
        code: failure.code,
        reason: describeFailure(this.#resource, failure),
      });
    }
  }

  #stepWorked(verb: ListWatchVerb): void {
    const cleared: VerbFailure | undefined = this.#health.succeeded(verb);
    if (cleared) this.#log.info('informer recovered', { resource: this.#resource, verb, failedAttempts: cleared.count });
  }

  #apply(event: WatcherEvent<T>): void {
    let changes: CacheEvent<T>[] = [];
    switch (event.type) {
      case 'replace':
        changes = this.#objects.replace(event.objects.map(this.#ingest));
        this.#streamRv = event.resourceVersion;
        break;
      case 'apply':
        changes = this.#objects.apply(this.#ingest(event.object));
        this.#streamRv = event.object.metadata.resourceVersion ?? this.#streamRv;
        break;
      case 'delete':
        changes = this.#objects.delete(this.#ingest(event.object));
        this.#streamRv = event.object.metadata.resourceVersion ?? this.#streamRv;
        break;
      case 'bookmark':
        this.#streamRv = event.resourceVersion;
        break;
    }
    this.#view.observe(changes);
    this.#view.advance(this.#streamRv);
    if (event.type === 'replace' && !this.#hasSynced) {
      this.#hasSynced = true;
      this.#log.debug('synced', { objects: this.#objects.size, resourceVersion: this.#streamRv });
    }
    const handlers = [...this.#handlers];
    for (const change of changes) {
      for (const handler of handlers) if (this.#handlers.has(handler)) this.#deliver(handler, change);
    }
    if (this.#hasSynced) this.#markSynced();
  }

  #deliver(handler: Handler<T>, event: CacheEvent<T>): void {
    try {
      handler(event);
    } catch (error) {
      this.#log.error('informer subscriber threw', { event: event.type, name: event.object.metadata.name, error: String(error) });
    }
  }

  #inScope(namespace: string | undefined): boolean {
    return this.#options.namespace === undefined || !this.descriptor.namespaced || namespace === this.#options.namespace;
  }
}
