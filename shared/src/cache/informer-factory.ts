// One informer per kind per process: every controller that asks for BareMetalHosts shares one
// list/watch and one cache. A controller that must hold less than the whole kind (a label-selected,
// metadata-only view of Secrets) asks for a selected informer, one per kind + selector + transform
// name, or for a projected one (every object, only the fields it reads; listed and watched as
// metadata alone when that is all it reads); each is run, tuned and judged for readiness like every
// other, so no informer lives outside it.
// A kind the controllers read in another version's shape than the apiserver serves (Cluster API's
// v1beta1 shape over v1beta2, S-10) is given a view before anyone asks for it (`readAs`): its
// informer lists the served version and projects each object. The manager starts the factory;
// informers asked for later (a controller added after start) start at once. `readiness()` feeds the manager's readiness check: every informer
// synced, and none unable to list or watch (a refused verb, a missing CRD, repeated failures), with
// the verb and resource named; each failed list or watch is counted in
// `informer_list_watch_errors_total{resource,verb,code}`.
import { type Api, type Client, gvkKey, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import type { Clock } from '../clock/clock.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { resourceName } from '../meta/resource-name.ts';
import type { Registry } from '../metrics/registry.ts';
import { SharedInformer } from './informer.ts';
import { metadataSource } from './metadata-source.ts';
import { type CacheTransform, stripManagedFields } from './transform.ts';
import type { Informer, InformerSelection, Projection, ReadView, SelectedInformerSource } from './types.ts';
import type { WriteNotes } from './write-through.ts';
import type { WatcherOptions } from './watcher.ts';

/** Watch tuning shared by every informer of a factory (tests shorten timeouts and backoff). */
export type WatcherTuning = Omit<WatcherOptions, 'clock' | 'log' | 'onRestart' | 'labelSelector' | 'fieldSelector'>;

export interface InformerFactoryOptions {
  /** Cache only this namespace (the manager's `--namespace`); cluster-scoped kinds are unaffected. */
  readonly namespace?: string;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Receives `informer_cached_objects{resource}` and `informer_watch_restarts_total{resource,reason}`. */
  readonly registry?: Registry;
  readonly watcher?: WatcherTuning;
}

/** The selectors of a selection as one string (`label,field`), for keys and metric labels. */
const selectorsOf = (s: Pick<InformerSelection<KubeObject>, 'labelSelector' | 'fieldSelector'>): string =>
  [s.labelSelector, s.fieldSelector].filter((x) => x !== undefined).join(',');

/** What tells one selected informer of a kind from another: its selectors and its transform's name. */
export const selectionKey = (s: Omit<InformerSelection<KubeObject>, 'transform'>): string => `?${selectorsOf(s)}#${s.transformName}`;

export class InformerFactory implements SelectedInformerSource {
  readonly #client: Client;
  readonly #options: InformerFactoryOptions;
  readonly #log: Logger;
  readonly #informers = new Map<string, SharedInformer<KubeObject>>();
  readonly #views = new Map<string, ReadView<KubeObject, KubeObject>>();
  /** The keys of the projected informers: each is noted the writes of its kind (existing()). */
  readonly #projections = new Set<string>();
  readonly #decisions = new Map<string, Promise<unknown>>();
  readonly #runs: Promise<void>[] = [];
  #signal: AbortSignal | undefined;

  constructor(client: Client, options: InformerFactoryOptions = {}) {
    this.#client = client;
    this.#options = options;
    this.#log = options.log ?? silentLogger;
  }

  /**
   * A start-up decision every controller of the process shares (which Cluster API version to read):
   * `decide` runs once per `key`, and every caller gets its promise. Kept here, not beside the caller,
   * because the all-in-one process hands each controller its own view of this factory.
   */
  decideOnce<T>(key: string, decide: () => Promise<T>): Promise<T> {
    let decision = this.#decisions.get(key) as Promise<T> | undefined;
    if (!decision) this.#decisions.set(key, decision = decide());
    return decision;
  }

  /**
   * From now on the informer of `view.shape` lists and watches `view.served` and caches each object
   * as `view.project` makes it (a kind the apiserver serves at another version than the one the
   * controllers read, research S-10). Called before any controller asks for that kind.
   */
  readAs<S extends KubeObject, T extends KubeObject>(view: ReadView<S, T>): void {
    const key = gvkKey(view.shape.group, view.shape.version, view.shape.kind);
    if ([...this.#informers.keys()].some((k) => k.split('?')[0] === key)) throw new Error(`readAs(${view.shape.kind}): an informer already reads ${key}`);
    this.#views.set(key, view as unknown as ReadView<KubeObject, KubeObject>);
  }

  informerFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>): Informer<T> {
    return this.#informer(descriptor, gvkKey(descriptor.group, descriptor.version, descriptor.kind));
  }

  /**
   * The informer of `descriptor`'s objects matching `selection.labelSelector`, each passed through
   * `selection.transform` before caching. Shared by every caller naming the same selector and
   * transform name (the name stands for the function: two names must not share one transform).
   */
  selectedInformerFor<T extends KubeObject>(descriptor: ResourceDescriptor<T>, selection: InformerSelection<T>): Informer<T> {
    return this.#selected(descriptor, selection, false);
  }

  #selected<T extends KubeObject>(descriptor: ResourceDescriptor<T>, selection: InformerSelection<T>, metadataOnly: boolean): Informer<T> {
    const { labelSelector, fieldSelector } = selection;
    const key = gvkKey(descriptor.group, descriptor.version, descriptor.kind) + selectionKey(selection);
    // The metric names a selection by its selectors, or by its transform when it selects nothing (a projection).
    const selectors = selectorsOf(selection) || `#${selection.transformName}`;
    return this.#informer(descriptor, key, { selectors, labelSelector, fieldSelector, metadataOnly }, selection.transform);
  }

  /**
   * The informer of every object of `descriptor`'s kind, cached as `projection` makes it (after
   * managedFields are dropped). Shared by every caller naming the same projection. A projection that
   * reads metadata only lists and watches metadata only (metadata-source.ts).
   */
  projectedInformerFor<T extends P, P extends KubeObject>(descriptor: ResourceDescriptor<T>, projection: Projection<T, P>): Informer<P> {
    // The store holds P objects under T's descriptor: callers only ever see them as P.
    const transform = ((object: T) => projection.project(stripManagedFields(object))) as unknown as CacheTransform<T>;
    const selection = { transform, transformName: projection.name };
    const key = gvkKey(descriptor.group, descriptor.version, descriptor.kind) + selectionKey(selection);
    this.#projections.add(key);
    return this.#selected(descriptor, selection, projection.metadataOnly === true) as unknown as Informer<P>;
  }

  #informer<T extends KubeObject>(
    descriptor: ResourceDescriptor<T>,
    key: string,
    selection?: { selectors: string; labelSelector?: string | undefined; fieldSelector?: string | undefined; metadataOnly: boolean },
    transform?: CacheTransform<T>,
  ): Informer<T> {
    const existing = this.#informers.get(key);
    if (existing) return existing as unknown as SharedInformer<T>;
    const { namespace, clock, registry } = this.#options;
    const view = this.#views.get(gvkKey(descriptor.group, descriptor.version, descriptor.kind)) as ReadView<KubeObject, T> | undefined;
    const source = (view?.served ?? descriptor) as ResourceDescriptor<T>;
    const api = namespace !== undefined && descriptor.namespaced ? this.#client.api(source, namespace) : this.#client.all(source);
    const metadataOnly = selection?.metadataOnly === true;
    // A view's objects are projected first (managedFields gone, as for every informer), then selected;
    // metadata alone needs no view.
    const ingest: CacheTransform<T> | undefined = view && !metadataOnly
      ? (object) => (transform ?? stripManagedFields)(view.project(stripManagedFields(object)))
      : transform;
    const resource = resourceName(descriptor.plural, descriptor.group);
    const objects = registry?.gauge('informer_cached_objects', 'Objects held in the shared informer cache', ['resource']);
    const restarts = registry?.counter('informer_watch_restarts_total', 'Times an informer went back to the apiserver, by reason', ['resource', 'reason']);
    const failures = registry?.counter(
      'informer_list_watch_errors_total',
      'Failed list or watch requests of a shared informer, by HTTP status code (0: no response)',
      ['resource', 'verb', 'code'],
    );
    // A selected informer of a kind that also has a full one reports its size on its own line.
    const sizeLabels = { resource: selection === undefined ? resource : `${resource}{${selection.selectors}}` };
    objects?.set(sizeLabels, 0);
    const informer = new SharedInformer<T>(metadataOnly ? metadataSource(api as Api<KubeObject>, source) : api, descriptor, {
      ...this.#options.watcher,
      ...(namespace !== undefined && descriptor.namespaced ? { namespace } : {}),
      ...(clock ? { clock } : {}),
      ...(selection?.labelSelector !== undefined ? { labelSelector: selection.labelSelector } : {}),
      ...(selection?.fieldSelector !== undefined ? { fieldSelector: selection.fieldSelector } : {}),
      ...(ingest ? { transform: ingest } : {}),
      ...(transform ? { noted: transform } : {}),
      log: this.#log,
      onSize: (size) => objects?.set(sizeLabels, size),
      onRestart: (reason) => {
        restarts?.inc({ resource, reason });
        // A watch that went silent died with the path to the apiserver, and the pool's idle keep-alive
        // sockets share that path: drop them too, or the reconcile its reopened watch is about to cause
        // waits out a request deadline on one of them first (issue 21.2).
        if (reason === 'inactive') this.#client.transport.dropIdleConnections();
      },
      onListWatchError: (verb, code) => failures?.inc({ resource, verb, code: String(code) }),
    });
    this.#informers.set(key, informer as unknown as SharedInformer<KubeObject>);
    if (this.#signal) this.#run(informer, this.#signal);
    return informer;
  }

  /** The watcher settings every informer of this factory gets (for a controller's own short-lived watches). */
  get watcherTuning(): WatcherTuning {
    return this.#options.watcher ?? {};
  }

  /**
   * Where this process's own writes of a kind go (read your writes, write-through.ts): its full
   * informer and each of its projections, a write noted in each as that informer caches objects.
   * Undefined when no controller asked for either; never creates an informer. Label- or
   * field-selected informers are left out: a written object need not match their selector.
   */
  existing<T extends KubeObject>(descriptor: ResourceDescriptor<T>): WriteNotes<T> | undefined {
    const kind = gvkKey(descriptor.group, descriptor.version, descriptor.kind);
    const targets: WriteNotes<KubeObject>[] = [];
    const full = this.#informers.get(kind);
    if (full) targets.push(full);
    for (const key of this.#projections) {
      // A projected informer projects what it is noted itself (SharedInformerOptions.noted).
      const projected = key.startsWith(`${kind}?`) ? this.#informers.get(key) : undefined;
      if (projected) targets.push(projected);
    }
    if (targets.length <= 1) return targets[0] as WriteNotes<T> | undefined;
    return { noteWrite: (o) => targets.forEach((t) => t.noteWrite(o)), noteDelete: (k) => targets.forEach((t) => t.noteDelete(k)) };
  }

  /** Runs every informer, present and future, until `signal` aborts; resolves once all have stopped. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#signal) throw new Error('InformerFactory.start called twice');
    this.#signal = signal;
    for (const informer of this.#informers.values()) this.#run(informer, signal);
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.all(this.#runs);
  }

  /** True when every informer asked for so far has applied its first list. */
  hasSynced(): boolean {
    for (const informer of this.#informers.values()) if (!informer.hasSynced()) return false;
    return true;
  }

  /**
   * The readiness verdict: ok when every informer has synced and can still list and watch; otherwise
   * `reason` names each informer not synced yet and each verb and resource that keeps failing.
   */
  readiness(): { readonly ok: boolean; readonly reason?: string } {
    const reasons: string[] = [];
    for (const informer of this.#informers.values()) {
      const problems = informer.problems();
      reasons.push(...problems);
      if (!informer.hasSynced() && problems.length === 0) reasons.push(`${resourceName(informer.descriptor.plural, informer.descriptor.group)} not synced yet`);
    }
    return reasons.length === 0 ? { ok: true } : { ok: false, reason: reasons.join('; ') };
  }

  /** Resolves when every informer (including ones added while waiting) has synced. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const current = [...this.#informers.values()];
      await Promise.all(current.map((informer) => informer.waitForSync(signal)));
      if (this.#informers.size === current.length) return;
    }
  }

  #run<T extends KubeObject>(informer: SharedInformer<T>, signal: AbortSignal): void {
    this.#runs.push(
      informer.run(signal).catch((error: unknown) => {
        this.#log.error('informer stopped unexpectedly', { resource: informer.descriptor.plural, error: String(error) });
      }),
    );
  }
}
