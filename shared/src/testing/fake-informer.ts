// An in-memory Informer for unit tests of controllers and handlers: the test plays the apiserver
// (`create`, `update`, `delete`, `markSynced`) and subscribers see the same CacheEvents a real
// informer delivers. Objects are stored as frozen copies, as in the real cache, so a reconcile that
// mutates a cached object fails the test.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import type { CacheEvent, IndexFn, Informer, InformerSource, ObjectKey, Store } from '../cache/types.ts';

const keyString = (key: ObjectKey) => (key.namespace ? `${key.namespace}/${key.name}` : key.name);
const keyOf = (obj: Readonly<KubeObject>) => keyString({ namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });

function frozenCopy<T>(value: T): Readonly<T> {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
    Object.freeze(v);
    for (const k of Object.keys(v)) freeze((v as Record<string, unknown>)[k]);
  };
  freeze(copy);
  return copy;
}

class FakeStore<T extends KubeObject> implements Store<T> {
  readonly objects = new Map<string, Readonly<T>>();
  readonly indexes = new Map<string, IndexFn<T>>();

  get(key: ObjectKey): Readonly<T> | undefined {
    return this.objects.get(keyString(key));
  }
  list(namespace?: string): readonly Readonly<T>[] {
    const all = [...this.objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }
  byIndex(index: string, value: string): readonly Readonly<T>[] {
    const fn = this.indexes.get(index);
    if (!fn) throw new Error(`no index named "${index}"`);
    return [...this.objects.values()].filter((o) => fn(o).includes(value));
  }
  get size(): number {
    return this.objects.size;
  }
}

export class FakeInformer<T extends KubeObject> implements Informer<T> {
  readonly descriptor: ResourceDescriptor<T>;
  readonly #store = new FakeStore<T>();
  readonly #handlers = new Set<(event: CacheEvent<T>) => void>();
  readonly #syncWaiters: (() => void)[] = [];
  #synced: boolean;
  #resourceVersion = 0;

  constructor(descriptor: ResourceDescriptor<T>, options: { synced?: boolean } = {}) {
    this.descriptor = descriptor;
    this.#synced = options.synced ?? true;
  }

  get store(): Store<T> {
    return this.#store;
  }

  /** How many handlers are subscribed: lets a test check that a stopped controller unsubscribed. */
  get subscribers(): number {
    return this.#handlers.size;
  }

  addIndex(name: string, fn: IndexFn<T>): void {
    this.#store.indexes.set(name, fn);
  }

  subscribe(handler: (event: CacheEvent<T>) => void): () => void {
    for (const object of this.#store.objects.values()) handler({ type: 'add', object });
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = this.#syncWaiters.indexOf(done);
        if (at >= 0) this.#syncWaiters.splice(at, 1);
        reject(signal?.reason);
      };
      this.#syncWaiters.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  noteWrite(object: T): void {
    this.#store.objects.set(keyOf(object), frozenCopy(object));
  }

  noteDelete(key: ObjectKey): void {
    this.#store.objects.delete(keyString(key));
  }

  /** Ends the "initial list": `hasSynced` turns true and sync waiters resume. */
  markSynced(): void {
    this.#synced = true;
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
  }

  /** Stores `object` (with a fresh resourceVersion, and a uid if it has none) and emits `add`. */
  create(object: T): Readonly<T> {
    const stored = this.#stamp(object);
    this.#store.objects.set(keyOf(stored), stored);
    this.#emit({ type: 'add', object: stored });
    return stored;
  }

  /** Replaces the stored object of the same key and emits `update`; creates it if absent. */
  update(object: T): Readonly<T> {
    const old = this.#store.objects.get(keyOf(object));
    if (!old) return this.create(object);
    const stored = this.#stamp(object);
    this.#store.objects.set(keyOf(stored), stored);
    this.#emit({ type: 'update', old, object: stored });
    return stored;
  }

  /** Removes the object and emits `delete` with its last state; returns false if it was absent. */
  delete(key: ObjectKey): boolean {
    const old = this.#store.objects.get(keyString(key));
    if (!old) return false;
    this.#store.objects.delete(keyString(key));
    this.#emit({ type: 'delete', object: old });
    return true;
  }

  #stamp(object: T): Readonly<T> {
    const rv = String(++this.#resourceVersion);
    const uid = object.metadata.uid ?? `uid-${keyOf(object)}`;
    return frozenCopy({ ...object, metadata: { ...object.metadata, uid, resourceVersion: rv } });
  }

  #emit(event: CacheEvent<T>): void {
    for (const handler of [...this.#handlers]) handler(event);
  }
}

/** One FakeInformer per kind, created on first request, as the real InformerFactory memoises them. */
export class FakeInformerSource implements InformerSource {
  readonly #informers = new Map<string, FakeInformer<KubeObject>>();
  readonly #synced: boolean;

  /** `synced: false` makes every informer start unsynced (call `markSynced` on each). */
  constructor(options: { synced?: boolean } = {}) {
    this.#synced = options.synced ?? true;
  }

  informerFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>): FakeInformer<T> {
    const key = `${descriptor.group}/${descriptor.version}/${descriptor.kind}`;
    let informer = this.#informers.get(key);
    if (!informer) {
      informer = new FakeInformer(descriptor as ResourceDescriptor<KubeObject>, { synced: this.#synced });
      this.#informers.set(key, informer);
    }
    return informer as unknown as FakeInformer<T>;
  }

  /** Every informer requested so far. */
  get informers(): readonly FakeInformer<KubeObject>[] {
    return [...this.#informers.values()];
  }
}
