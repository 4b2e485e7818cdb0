// Typed access to one resource: `Api<T>` is bound to a descriptor and, for namespaced kinds, to a
// namespace (or to all namespaces for lists and watches). Every method returns the kind's own type.
import { apiError, GoneError } from './errors.ts';
import type { JsonValue, KubeList, KubeObject, Status } from './meta.ts';
import type { ResourceDescriptor } from './resource.ts';
import { jsonLines, type Transport } from './transport.ts';

/** A JSON merge patch of T: every field optional, `null` deletes it, arrays are replaced whole. */
export type MergePatch<T> = T extends readonly unknown[] ? T
  : T extends object ? { [K in keyof T]?: MergePatch<T[K]> | null }
  : T;

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue | object }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  /** `Strict` makes the server reject unknown or duplicate fields instead of dropping them. */
  readonly fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface ApplyOptions extends WriteOptions {
  readonly fieldManager: string;
  readonly force?: boolean;
}

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  /** '0' serves from the watch cache; omitted means a consistent read. */
  readonly resourceVersion?: string;
  readonly signal?: AbortSignal;
}

export interface WatchOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  /** Server-side timeout; the server closes the watch cleanly after it. */
  readonly timeoutSeconds?: number;
  readonly signal?: AbortSignal;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

export type WatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'> };

// A metadata-only read: the apiserver answers with the objects' metadata alone (meta.k8s.io/v1).
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

const PATCH = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export class Api<T extends KubeObject> {
  readonly descriptor: ResourceDescriptor<T>;
  /** The bound namespace; undefined for cluster-scoped kinds and all-namespace views. */
  readonly namespace: string | undefined;
  readonly #transport: Transport;

  constructor(transport: Transport, descriptor: ResourceDescriptor<T>, namespace?: string) {
    if (namespace !== undefined && !descriptor.namespaced) throw new Error(`${descriptor.kind} is cluster-scoped: no namespace`);
    this.#transport = transport;
    this.descriptor = descriptor;
    this.namespace = namespace;
  }

  get(name: string, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.#call('GET', 'get', this.#path(name), undefined, undefined, {}, options.signal);
  }

  list(options: ListOptions = {}): Promise<KubeList<T>> {
    const { signal, ...query } = options;
    return this.#call('GET', 'list', this.#collection(), undefined, undefined, query, signal);
  }

  /**
   * Every object's type and metadata, nothing else (the apiserver's PartialObjectMetadataList, kind
   * `PartialObjectMetadata` per item): a fraction of the bytes of a list, for metadata-only caches.
   */
  async listMetadata(options: ListOptions = {}): Promise<KubeList<KubeObject>> {
    const { signal, ...query } = options;
    const path = withQuery(this.#collection(), query);
    const request = { method: 'GET', path, verb: 'list', resource: this.descriptor.plural, accept: METADATA_LIST, ...(signal ? { signal } : {}) } as const;
    const list = await this.#transport.request<KubeList<KubeObject>>(request);
    // The apiserver writes an empty PartialObjectMetadataList's items as null.
    return list.items ? list : { ...list, items: [] };
  }

  /** Every object, following `continue` tokens page by page. */
  async *listAll(options: Omit<ListOptions, 'continue'> = {}): AsyncGenerator<T, string | undefined> {
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.list({ limit: 500, ...options, ...(token ? { continue: token } : {}) });
      for (const item of page.items) yield item;
      token = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (token);
    return resourceVersion;
  }

  create(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#call('POST', 'create', this.#collection(obj), obj, undefined, options);
  }

  replace(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#call('PUT', 'update', this.#path(obj.metadata.name, obj), obj, undefined, options);
  }

  mergePatch(name: string, patch: MergePatch<T>, options: WriteOptions = {}): Promise<T> {
    return this.#call('PATCH', 'patch', this.#path(name), patch, PATCH.merge, options);
  }

  jsonPatch(name: string, operations: readonly JsonPatchOperation[], options: WriteOptions = {}): Promise<T> {
    return this.#call('PATCH', 'patch', this.#path(name), operations, PATCH.json, options);
  }

  /** Server-side apply: the server merges `obj` as owned by `fieldManager`. */
  apply(obj: MergePatch<T> & Pick<T, 'apiVersion' | 'kind'> & { metadata: { name: string } }, options: ApplyOptions): Promise<T> {
    return this.#call('PATCH', 'patch', this.#path(obj.metadata.name, obj as Partial<T>), obj, PATCH.apply, options);
  }

  getStatus(name: string): Promise<T> {
    return this.#call('GET', 'get', `${this.#path(name)}/status`, undefined, undefined, {});
  }

  replaceStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#call('PUT', 'update', `${this.#path(obj.metadata.name, obj)}/status`, obj, undefined, options);
  }

  mergePatchStatus(name: string, patch: MergePatch<T>, options: WriteOptions = {}): Promise<T> {
    return this.#call('PATCH', 'patch', `${this.#path(name)}/status`, patch, PATCH.merge, options);
  }

  jsonPatchStatus(name: string, operations: readonly JsonPatchOperation[], options: WriteOptions = {}): Promise<T> {
    return this.#call('PATCH', 'patch', `${this.#path(name)}/status`, operations, PATCH.json, options);
  }

  applyStatus(obj: MergePatch<T> & Pick<T, 'apiVersion' | 'kind'> & { metadata: { name: string } }, options: ApplyOptions): Promise<T> {
    return this.#call('PATCH', 'patch', `${this.#path(obj.metadata.name, obj as Partial<T>)}/status`, obj, PATCH.apply, options);
  }

  /** Deletes; returns the object (still terminating, with finalizers) or the server's Status. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    // The apiserver reads a DELETE's options from its body when there is one, and ignores the query:
    // `dryRun` must travel in the body (as `["All"]`), or a dry run deletes for real.
    const { dryRun, ...rest } = options;
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', ...rest, ...(dryRun ? { dryRun: ['All'] } : {}) };
    return this.#call('DELETE', 'delete', this.#path(name), body, undefined, dryRun ? { dryRun: true } : {});
  }

  /**
   * Streams watch events until the server closes the watch or `signal` aborts. A 410 (expired
   * resourceVersion) arrives as a thrown GoneError, whether as HTTP status or as an ERROR event.
   */
  watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    return this.#watch<T>(options, undefined);
  }

  /** The watch of every object's type and metadata only (PartialObjectMetadata), as listMetadata lists them. */
  watchMetadata(options: WatchOptions = {}): AsyncGenerator<WatchEvent<KubeObject>> {
    return this.#watch<KubeObject>(options, METADATA);
  }

  async *#watch<R>(options: WatchOptions, accept: string | undefined): AsyncGenerator<WatchEvent<R>> {
    const { signal, ...query } = options;
    const path = withQuery(this.#collection(), { ...query, watch: true });
    const request = {
      method: 'GET',
      path,
      verb: 'watch',
      resource: this.descriptor.plural,
      ...(accept ? { accept } : {}),
      ...(signal ? { signal } : {}),
    } as const;
    const res = await this.#transport.stream(request);
    try {
      for await (const event of jsonLines<{ type: string; object: unknown }>(res.body)) {
        if (event.type === 'ERROR') {
          const status = event.object as Status;
          const context = { verb: 'WATCH', path };
          throw status.code === 410 ? new GoneError(410, status, context) : apiError(status.code ?? 500, status, context);
        }
        yield event as WatchEvent<R>;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    } finally {
      res.close();
    }
  }

  #namespaceFor(obj?: Partial<KubeObject>): string | undefined {
    if (!this.descriptor.namespaced) return undefined;
    const ns = this.namespace ?? obj?.metadata?.namespace;
    if (!ns) throw new Error(`${this.descriptor.kind} is namespaced: bind the Api to a namespace or set metadata.namespace`);
    return ns;
  }

  #root(): string {
    const d = this.descriptor;
    return d.group === '' ? `/api/${d.version}` : `/apis/${d.group}/${d.version}`;
  }

  #collection(obj?: Partial<KubeObject>): string {
    const d = this.descriptor;
    const root = this.#root();
    const listAll = obj === undefined && this.namespace === undefined;
    const ns = d.namespaced && !listAll ? this.#namespaceFor(obj) : undefined;
    return ns ? `${root}/namespaces/${encodeURIComponent(ns)}/${d.plural}` : `${root}/${d.plural}`;
  }

  #path(name: string | undefined, obj?: Partial<KubeObject>): string {
    if (!name) throw new Error(`${this.descriptor.kind}: a name is required`);
    const ns = this.#namespaceFor(obj);
    return `${this.#root()}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${this.descriptor.plural}/${encodeURIComponent(name)}`;
  }

  #call<R>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    verb: string,
    path: string,
    body: unknown,
    contentType: string | undefined,
    query: object,
    signal?: AbortSignal,
  ): Promise<R> {
    return this.#transport.request<R>({
      method,
      path: withQuery(path, query),
      body,
      verb,
      resource: this.descriptor.plural,
      ...(contentType ? { contentType } : {}),
      ...(signal ? { signal } : {}),
    });
  }
}

function withQuery(path: string, query: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === false) continue;
    params.set(key, key === 'dryRun' ? 'All' : String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Entry point: one transport, many typed Apis. */
export class Client {
  readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  /** An Api bound to a namespace (namespaced kinds) or to the cluster (cluster-scoped kinds). */
  api<T extends KubeObject>(descriptor: ResourceDescriptor<T>, namespace?: string): Api<T> {
    return new Api(this.transport, descriptor, descriptor.namespaced ? namespace : undefined);
  }

  /** An Api over all namespaces, for list and watch. */
  all<T extends KubeObject>(descriptor: ResourceDescriptor<T>): Api<T> {
    return new Api(this.transport, descriptor);
  }
}
