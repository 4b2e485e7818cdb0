// Test double for the watcher's ListWatchSource: an in-memory "apiserver" for one kind with a
// revision counter, an event history (compactable, to provoke 410), paginated lists, and knobs to
// fail, close or silence watches. Used by the cache unit tests only.
import { ApiError, GoneError, type KubeList, type KubeObject, type ListOptions, type WatchEvent, type WatchOptions } from '@metal3-ts/generated';
import type { ListWatchSource } from '../watcher.ts';
import { compareCodeUnits } from '../../meta/compare.ts';

type Change<T> = { readonly rv: number; readonly event: WatchEvent<T> };

interface OpenWatch<T> {
  readonly queue: (WatchEvent<T> | Error | 'close')[];
  wake(): void;
}

export const configMap = (name: string, data: Record<string, string> = {}, namespace = 'ns'): KubeObject & { data: Record<string, string> } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

export class FakeListWatch<T extends KubeObject> implements ListWatchSource<T> {
  #rv = 100;
  #uid = 0;
  #compactedRv = 0;
  readonly #objects = new Map<string, T>();
  readonly #history: Change<T>[] = [];
  readonly #watches = new Set<OpenWatch<T>>();
  /** Errors the next list/watch calls throw, in order. */
  readonly listFailures: Error[] = [];
  readonly watchFailures: Error[] = [];
  /** When set, new watches yield nothing until aborted (a half-open connection). */
  silent = false;
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];

  get resourceVersion(): string {
    return String(this.#rv);
  }

  get openWatches(): number {
    return this.#watches.size;
  }

  objects(): T[] {
    return [...this.#objects.values()];
  }

  create(object: T): T {
    const stored = this.#stamp({ ...object, metadata: { ...object.metadata, uid: `uid-${++this.#uid}` } });
    this.#record('ADDED', stored);
    return structuredClone(stored);
  }

  update(object: T): T {
    const old = this.#objects.get(keyOf(object));
    if (!old) throw new Error(`no ${keyOf(object)}`);
    const stored = this.#stamp({ ...object, metadata: { ...object.metadata, uid: old.metadata.uid } });
    this.#record('MODIFIED', stored);
    return structuredClone(stored);
  }

  remove(name: string, namespace = 'ns'): void {
    const key = `${namespace}/${name}`;
    const old = this.#objects.get(key);
    if (!old) throw new Error(`no ${key}`);
    this.#objects.delete(key);
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.#rv) } };
    this.#push({ rv: this.#rv, event: { type: 'DELETED', object: gone } });
  }

  /** Forgets history up to now: watches from older revisions get 410 Gone. */
  compact(): void {
    this.#compactedRv = this.#rv;
    this.#history.length = 0;
  }

  /** Sends a BOOKMARK at the current revision to every open watch. */
  bookmark(): void {
    const event: WatchEvent<T> = { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(this.#rv) } } };
    for (const w of this.#watches) (w.queue.push(event), w.wake());
  }

  /** Ends every open watch cleanly (as the server's timeoutSeconds does). */
  closeWatches(): void {
    for (const w of this.#watches) (w.queue.push('close'), w.wake());
  }

  /** Makes every open watch fail with `error` (e.g. a GoneError for an ERROR event, a reset). */
  breakWatches(error: Error): void {
    for (const w of this.#watches) (w.queue.push(error), w.wake());
  }

  async list(options: ListOptions): Promise<KubeList<T>> {
    this.listCalls.push(options);
    await Promise.resolve();
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    const all = [...this.#objects.values()].sort((a, b) => compareCodeUnits(keyOf(a), keyOf(b)));
    const start = options.continue ? Number(options.continue) : 0;
    const limit = options.limit ?? all.length;
    const items = all.slice(start, start + limit).map((o) => structuredClone(o));
    const next = start + limit < all.length ? String(start + limit) : undefined;
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(this.#rv), ...(next ? { continue: next } : {}) }, items };
  }

  async *watch(options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    this.watchCalls.push(options);
    await Promise.resolve();
    const failure = this.watchFailures.shift();
    if (failure) throw failure;
    const from = Number(options.resourceVersion ?? this.#rv);
    if (from < this.#compactedRv) throw gone();
    const w: OpenWatch<T> = { queue: [], wake: () => {} };
    if (!this.silent) { for (const c of this.#history) if (c.rv > from) w.queue.push(structuredClone(c.event)); }
    this.#watches.add(w);
    const signal = options.signal;
    try {
      for (;;) {
        if (signal?.aborted) return;
        const next = w.queue.shift();
        if (next === 'close') return;
        if (next instanceof Error) throw next;
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          w.wake = resolve;
          signal?.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    } finally {
      this.#watches.delete(w);
    }
  }

  #stamp(object: T): T {
    const stored = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(++this.#rv) } });
    this.#objects.set(keyOf(stored), stored);
    return stored;
  }

  #record(type: 'ADDED' | 'MODIFIED', object: T): void {
    this.#push({ rv: this.#rv, event: { type, object: structuredClone(object) } });
  }

  #push(change: Change<T>): void {
    this.#history.push(change);
    if (this.silent) return;
    for (const w of this.#watches) (w.queue.push(structuredClone(change.event)), w.wake());
  }
}

export function gone(): GoneError {
  return new GoneError(410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }, { verb: 'WATCH', path: '/fake' });
}

export function serverError(code = 500): ApiError {
  return new ApiError(code, { kind: 'Status', code, message: 'boom' }, { verb: 'GET', path: '/fake' });
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
