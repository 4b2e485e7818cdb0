// Read your own writes. After this process writes an object, the watch may take a while to deliver
// that version; a reconcile that runs in between would read the older cached copy and act on it
// (a second claim, a lost status update, "the object has been modified"). The overlay remembers what
// we wrote, or that we deleted, and the read view prefers it until the watch has caught up.
//
// Rules:
// - A write is pending until the watch has delivered that resourceVersion or a newer one: either an
//   event for the same object at rv >= written, or any event or bookmark whose rv is >= written
//   (watch events arrive in revision order, so the stream passing that revision means the write was
//   applied, or the object is not in this informer's selection at all). RVs compare as integers
//   (etcd revisions); when either side does not parse, the newer one is whichever arrived last: any
//   event for that object clears the pending write.
// - A delete is pending until the watch reports the object deleted, shows it terminating
//   (deletionTimestamp set: the delete is then visible in the cache itself), or shows a different uid
//   under the key (a recreation). Until then reads do not see the object.
// - Subscribers are not affected: they still get every real watch event, including the ones for our
//   own writes. The overlay changes what get/list/byIndex return, nothing else.
import type { KubeObject } from '@metal3-ts/generated';
import { deepFreeze } from './freeze.ts';
import { keyOf, keyString, type ObjectStore } from './object-store.ts';
import { compareResourceVersions, isAtLeast } from './resource-version.ts';
import type { CacheEvent, ObjectKey, Store } from './types.ts';

type Pending<T> =
  | { readonly kind: 'write'; readonly object: Readonly<T> }
  | { readonly kind: 'delete'; readonly uid: string | undefined; readonly removed?: boolean };

export class ReadYourWrites<T extends KubeObject> implements Store<T> {
  readonly #store: ObjectStore<T>;
  readonly #pending = new Map<string, Pending<T>>();

  constructor(store: ObjectStore<T>) {
    this.#store = store;
  }

  /** How many writes and deletes are still waiting for the watch. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Remembers an object this process wrote (the apiserver's response). `streamRv` is the last
   * revision the watch delivered: a write at or below it is already in the cache, or never will be.
   */
  noteWrite(object: T, streamRv: string | undefined): void {
    const key = keyOf(object);
    const rv = object.metadata.resourceVersion;
    const cached = this.#store.getByKey(key);
    if (removedByWrite(object)) {
      // Our write took the last finalizer off a terminating object, so the server deleted it; the
      // response carries the resourceVersion the object had before, which the rules below would take
      // as already cached. Hide the cached copy until the watch reports the delete.
      if (cached && cached.metadata.uid === object.metadata.uid) this.#pending.set(key, { kind: 'delete', uid: object.metadata.uid, removed: true });
      return;
    }
    if (cached && cached.metadata.uid === object.metadata.uid && isAtLeast(cached.metadata.resourceVersion, rv)) return;
    if (isAtLeast(streamRv, rv)) return;
    const current = this.#pending.get(key);
    if (current?.kind === 'write' && (compareResourceVersions(current.object.metadata.resourceVersion, rv) ?? -1) > 0) return;
    // A private frozen copy: the caller keeps its own object mutable.
    this.#pending.set(key, { kind: 'write', object: deepFreeze(structuredClone(object)) });
  }

  /** Remembers that this process deleted the object under `key`. */
  noteDelete(key: ObjectKey): void {
    const k = keyString(key);
    const cached = this.#store.getByKey(k);
    // Already terminating in the cache: the delete is visible there, and deleting again may change
    // nothing on the server, so no event would ever settle an entry.
    if (cached?.metadata.deletionTimestamp) {
      this.#pending.delete(k);
      return;
    }
    this.#pending.set(k, { kind: 'delete', uid: cached?.metadata.uid });
  }

  /** Settles pending entries against changes the store just applied. */
  observe(events: readonly CacheEvent<T>[]): void {
    for (const event of events) {
      const key = keyOf(event.object);
      const pending = this.#pending.get(key);
      if (!pending) continue;
      if (settles(pending, event)) this.#pending.delete(key);
    }
  }

  /** Drops every pending write the watch stream has passed (`streamRv` >= written rv). */
  advance(streamRv: string | undefined): void {
    for (const [key, pending] of this.#pending) {
      if (pending.kind === 'write' && isAtLeast(streamRv, pending.object.metadata.resourceVersion)) this.#pending.delete(key);
    }
  }

  get size(): number {
    let size = this.#store.size;
    for (const [key, pending] of this.#pending) {
      const cached = this.#store.getByKey(key);
      if (pending.kind === 'write' && !cached) size++;
      if (pending.kind === 'delete' && cached) size--;
    }
    return size;
  }

  get(key: ObjectKey): Readonly<T> | undefined {
    const k = keyString(key);
    const pending = this.#pending.get(k);
    if (!pending) return this.#store.getByKey(k);
    return pending.kind === 'write' ? pending.object : undefined;
  }

  list(namespace?: string): readonly Readonly<T>[] {
    return this.#overlay(this.#store.list(namespace), (object) => namespace === undefined || object.metadata.namespace === namespace);
  }

  byIndex(index: string, value: string): readonly Readonly<T>[] {
    const cached = this.#store.byIndex(index, value);
    if (this.#pending.size === 0) return cached;
    const fn = this.#store.indexFn(index);
    return this.#overlay(cached, (object) => {
      try {
        return fn(object).includes(value);
      } catch {
        return false; // as the store does: an object its index function rejects is filed nowhere
      }
    });
  }

  /** `cached` with pending entries applied: written objects that `matches` replace or join, deleted ones leave. */
  #overlay(cached: readonly Readonly<T>[], matches: (object: Readonly<T>) => boolean): readonly Readonly<T>[] {
    if (this.#pending.size === 0) return cached;
    const out = cached.filter((object) => !this.#pending.has(keyOf(object)));
    for (const pending of this.#pending.values()) {
      if (pending.kind === 'write' && matches(pending.object)) out.push(pending.object);
    }
    return out;
  }
}

function settles<T extends KubeObject>(pending: Pending<T>, event: CacheEvent<T>): boolean {
  if (pending.kind === 'write') {
    const order = compareResourceVersions(event.object.metadata.resourceVersion, pending.object.metadata.resourceVersion);
    // Unparsable on either side: the event arrived after the write, so it is the newer state.
    return order === undefined || order >= 0;
  }
  if (event.type === 'delete') return true;
  // Already gone on the server: only its delete event (or a recreation) settles it, not a late update.
  if (pending.removed) return pending.uid !== event.object.metadata.uid;
  if (event.object.metadata.deletionTimestamp) return pending.uid === undefined || pending.uid === event.object.metadata.uid;
  return pending.uid !== undefined && pending.uid !== event.object.metadata.uid;
}

/**
 * A write response showing the object terminating with no finalizer left and no grace period: the
 * write removed the last finalizer and the server deleted the object (a pod in its grace period
 * still exists and is not matched).
 */
function removedByWrite(object: KubeObject): boolean {
  const meta = object.metadata;
  return meta.deletionTimestamp !== undefined && (meta.finalizers?.length ?? 0) === 0 && (meta.deletionGracePeriodSeconds ?? 0) === 0;
}
