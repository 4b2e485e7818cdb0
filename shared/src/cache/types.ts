// The read side of the harness: one shared informer per kind keeps a Store in step with the
// apiserver; controllers read from the store and subscribe to its changes. Cached objects are
// deep-frozen: a reconcile that wants to change one works on a copy (structuredClone) and writes it.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import type { CacheTransform } from './transform.ts';

/** Identifies one object in a store. */
export interface ObjectKey {
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** A change the store applied. `update` carries the previous object; `delete` the last known state. */
export type CacheEvent<T extends KubeObject> =
  | { readonly type: 'add'; readonly object: Readonly<T> }
  | { readonly type: 'update'; readonly object: Readonly<T>; readonly old: Readonly<T> }
  | { readonly type: 'delete'; readonly object: Readonly<T> };

/** Maps an object to the index values it is filed under (e.g. owner UIDs, a consumer key). */
export type IndexFn<T extends KubeObject> = (object: Readonly<T>) => readonly string[];

export interface Store<T extends KubeObject> {
  get(key: ObjectKey): Readonly<T> | undefined;
  /** Every object, or those of one namespace. */
  list(namespace?: string): readonly Readonly<T>[];
  /** Objects filed under `value` by the index named `index`; throws for an unknown index. */
  byIndex(index: string, value: string): readonly Readonly<T>[];
  readonly size: number;
}

export interface Informer<T extends KubeObject> {
  readonly descriptor: ResourceDescriptor<T>;
  readonly store: Store<T>;
  /** Adds an index; allowed before and after start (existing objects are indexed at once). */
  addIndex(name: string, fn: IndexFn<T>): void;
  /**
   * Calls `handler` for every change from now on. A subscriber added after the initial list gets an
   * `add` for every object already in the store first, so late subscribers miss nothing.
   */
  subscribe(handler: (event: CacheEvent<T>) => void): () => void;
  /** True once the first list has been applied; stays true across reconnects and relists. */
  hasSynced(): boolean;
  /** Resolves when synced; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /**
   * Read your own writes: records an object this process just wrote (the apiserver's response), so
   * the store serves it until the watch delivers that version or a newer one.
   */
  noteWrite(object: T): void;
  /** Read your own writes for a delete: the store hides the object until the watch confirms it. */
  noteDelete(key: ObjectKey): void;
}

export interface InformerOptions {
  /** Restrict to one namespace (the manager's `--namespace`). */
  readonly namespace?: string;
  readonly labelSelector?: string;
}

/** Where controllers get informers: one per kind per process, shared by every controller. */
export interface InformerSource {
  informerFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>): Informer<T>;
}

/** A narrowed view of a kind: only objects matching the selector, each transformed before caching. */
export interface InformerSelection<T extends KubeObject> {
  readonly labelSelector?: string;
  /** E.g. `metadata.name=<name>`: one object, which RBAC can grant by resourceNames. */
  readonly fieldSelector?: string;
  readonly transform: CacheTransform<T>;
  /** Names `transform` in the informer's key (functions cannot be compared). */
  readonly transformName: string;
}

/**
 * What a projected informer keeps of each object of a kind: the fields its readers need. `P` only
 * leaves fields out of `T` (`T extends P`), so the kind's full informer can always stand in for a
 * projection (the all-in-one process does). `name` stands for `project` in the informer's key.
 */
export interface Projection<T extends P, P extends KubeObject> {
  readonly name: string;
  readonly project: (object: T) => P;
  /** `project` reads nothing but apiVersion, kind and metadata: the informer lists and watches metadata alone. */
  readonly metadataOnly?: boolean;
}

/** An InformerSource that also hands out selected and projected informers (InformerFactory). */
export interface SelectedInformerSource extends InformerSource {
  selectedInformerFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>, selection: InformerSelection<T>): Informer<T>;
  /** Every object of the kind, each cached as `projection` makes it (less memory than the full informer). */
  projectedInformerFor<T extends P, P extends KubeObject>(descriptor: ResourceDescriptor<T>, projection: Projection<T, P>): Informer<P>;
}

/**
 * A kind the controllers read in one shape (`shape`, e.g. Cluster API's v1beta1 Machine) while the
 * informer lists and watches another served version (`served`) and projects each object into it.
 */
export interface ReadView<S extends KubeObject, T extends KubeObject> {
  readonly shape: ResourceDescriptor<T>;
  readonly served: ResourceDescriptor<S>;
  readonly project: (served: S) => T;
}
