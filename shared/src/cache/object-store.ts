// The cache proper: objects by namespace/name, plus secondary indexes. Only the informer writes to
// it (through the methods below); controllers see it through the read-only `Store` interface. Each
// mutation returns the CacheEvents it caused, so the informer can hand exactly those to subscribers.
import type { KubeObject } from '@metal3-ts/generated';
import type { CacheEvent, IndexFn, ObjectKey, Store } from './types.ts';

/** `namespace/name`, or `name` for cluster-scoped objects: the store's key string. */
export function keyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/** The key of an object (its namespace and name). */
export function keyOf(object: Readonly<KubeObject>): string {
  return keyString({ namespace: object.metadata.namespace, name: object.metadata.name ?? '' });
}

/** Thrown by `byIndex` for an index nobody added: a wiring mistake, not a cache miss. */
export class UnknownIndexError extends Error {
  override name = 'UnknownIndexError';
  constructor(index: string) {
    super(`no index named "${index}" (add it with informer.addIndex before reading it)`);
  }
}

interface Index<T extends KubeObject> {
  readonly name: string;
  readonly fn: IndexFn<T>;
  readonly byValue: Map<string, Set<string>>;
}

export class ObjectStore<T extends KubeObject> implements Store<T> {
  readonly #objects = new Map<string, Readonly<T>>();
  readonly #byNamespace = new Map<string, Set<string>>();
  readonly #indexes = new Map<string, Index<T>>();
  readonly #onIndexError: (index: string, object: Readonly<T>, error: unknown) => void;

  /**
   * `onIndexError` hears about index functions that throw; the object is then filed under no value
   * of that index, and the store (and the informer feeding it) carries on.
   */
  constructor(onIndexError: (index: string, object: Readonly<T>, error: unknown) => void = () => {}) {
    this.#onIndexError = onIndexError;
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: ObjectKey): Readonly<T> | undefined {
    return this.#objects.get(keyString(key));
  }

  getByKey(key: string): Readonly<T> | undefined {
    return this.#objects.get(key);
  }

  list(namespace?: string): readonly Readonly<T>[] {
    if (namespace === undefined) return [...this.#objects.values()];
    return this.#resolve(this.#byNamespace.get(namespace));
  }

  byIndex(index: string, value: string): readonly Readonly<T>[] {
    const entry = this.#indexes.get(index);
    if (!entry) throw new UnknownIndexError(index);
    return this.#resolve(entry.byValue.get(value));
  }

  hasIndex(index: string): boolean {
    return this.#indexes.has(index);
  }

  /** The index function registered under `index`, for views that file extra objects themselves. */
  indexFn(index: string): IndexFn<T> {
    const entry = this.#indexes.get(index);
    if (!entry) throw new UnknownIndexError(index);
    return entry.fn;
  }

  /**
   * Registers an index and files every object already cached under it. The informer is shared, so
   * several controllers may ask for the same index: a name identifies its function, and adding a
   * name that exists keeps the first registration.
   */
  addIndex(name: string, fn: IndexFn<T>): void {
    if (this.#indexes.has(name)) return;
    const entry: Index<T> = { name, fn, byValue: new Map() };
    this.#indexes.set(name, entry);
    for (const [key, object] of this.#objects) file(entry.byValue, this.#values(entry, object), key);
  }

  /**
   * Stores an ADDED or MODIFIED object. A different uid under the same key is a recreation the
   * watch compressed (possible across a relist): it is reported as the delete of the old object and
   * the add of the new one, so uid-keyed consumers are not fooled into seeing one long-lived object.
   */
  apply(object: Readonly<T>): CacheEvent<T>[] {
    const key = keyOf(object);
    const old = this.#objects.get(key);
    if (old && old.metadata.uid !== object.metadata.uid) {
      this.#remove(key, old);
      this.#insert(key, object);
      return [
        { type: 'delete', object: old },
        { type: 'add', object },
      ];
    }
    if (old) this.#unfile(key, old);
    this.#insert(key, object);
    return [old ? { type: 'update', object, old } : { type: 'add', object }];
  }

  /** Removes an object; `object` (the watch's final state) is what the event carries. */
  delete(object: Readonly<T>): CacheEvent<T>[] {
    const key = keyOf(object);
    const old = this.#objects.get(key);
    if (!old) return [];
    this.#remove(key, old);
    return [{ type: 'delete', object }];
  }

  /**
   * Replaces the whole content with a fresh list: objects missing from it get a synthesised delete,
   * new ones an add, changed ones an update. Objects whose uid and resourceVersion did not change
   * produce no event, so a relist does not wake every controller for nothing.
   */
  replace(objects: readonly Readonly<T>[]): CacheEvent<T>[] {
    const events: CacheEvent<T>[] = [];
    const listed = new Set<string>();
    for (const object of objects) listed.add(keyOf(object));
    for (const [key, old] of [...this.#objects]) {
      if (!listed.has(key)) {
        this.#remove(key, old);
        events.push({ type: 'delete', object: old });
      }
    }
    for (const object of objects) {
      const old = this.#objects.get(keyOf(object));
      if (old && old.metadata.uid === object.metadata.uid && old.metadata.resourceVersion === object.metadata.resourceVersion) continue;
      events.push(...this.apply(object));
    }
    return events;
  }

  #insert(key: string, object: Readonly<T>): void {
    this.#objects.set(key, object);
    const ns = object.metadata.namespace ?? '';
    file(this.#byNamespace, [ns], key);
    for (const entry of this.#indexes.values()) file(entry.byValue, this.#values(entry, object), key);
  }

  #remove(key: string, object: Readonly<T>): void {
    this.#objects.delete(key);
    unfile(this.#byNamespace, [object.metadata.namespace ?? ''], key);
    this.#unfile(key, object);
  }

  #unfile(key: string, object: Readonly<T>): void {
    for (const entry of this.#indexes.values()) unfile(entry.byValue, this.#values(entry, object), key);
  }

  #values(entry: Index<T>, object: Readonly<T>): readonly string[] {
    try {
      return entry.fn(object);
    } catch (error) {
      this.#onIndexError(entry.name, object, error);
      return [];
    }
  }

  #resolve(keys: Set<string> | undefined): Readonly<T>[] {
    if (!keys) return [];
    const out: Readonly<T>[] = [];
    for (const key of keys) {
      const object = this.#objects.get(key);
      if (object) out.push(object);
    }
    return out;
  }
}

function file(map: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = map.get(value);
    if (!keys) map.set(value, keys = new Set());
    keys.add(key);
  }
}

function unfile(map: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = map.get(value);
    if (!keys) continue;
    keys.delete(key);
    if (keys.size === 0) map.delete(value);
  }
}
