// Wiring a controller: what it reconciles, what else wakes it, which events count. Chain methods only
// record; `build()` checks everything at once and reports every problem it found.
//
//   controllerFor('metal3machine', Metal3MachineResource, { informers, registry, log })
//     .owns(Metal3DataClaimResource)
//     .watches(BareMetalHostResource, hostToMetal3Machine)
//     .withEventFilter(resourceNotPausedAndHasFilterLabel(watchFilter))
//     .build(reconcileMetal3Machine);
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import type { Informer, InformerSource } from '../cache/types.ts';
import type { Clock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Registry } from '../metrics/registry.ts';
import type { ReconcileFn, Reconciler, Request } from '../reconcile/reconcile.ts';
import { Controller, type ControllerOptions } from './controller.ts';
import { enqueueFromMap, enqueueOwner, enqueueSelf, type EventHandler, type MapFn } from './handlers.ts';
import type { Predicate } from './predicates.ts';
import { type EventSource, informerSource } from './source.ts';

/** What a builder needs; every controller's own Deps extends it and passes itself whole. */
export interface ControllerDeps {
  readonly informers: InformerSource;
  readonly registry?: Registry;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Refused requests of a reconcile leave a Warning event on the reconciled object (controller.ts). */
  readonly events?: EventRecorder | undefined;
}

/** A wiring mistake found by `build()`; `problems` lists all of them. */
export class ControllerBuildError extends Error {
  override name = 'ControllerBuildError';
  readonly problems: readonly string[];
  constructor(controller: string, problems: readonly string[]) {
    super(`controller "${controller}": ${problems.join('; ')}`);
    this.problems = problems;
  }
}

// Controller names become metric label values and log fields; keep them to what Kubernetes allows
// in a name, as controller-runtime's name validation does.
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The informer a watch names itself, or undefined when it names a kind (the kind's informer then). */
function chosenInformer<O extends KubeObject>(watched: ResourceDescriptor<O> | Informer<O>): Informer<O> | undefined {
  return 'store' in watched ? watched : undefined;
}

const kindOf = (watched: ResourceDescriptor<KubeObject> | Informer<KubeObject>): string => ('store' in watched ? watched.descriptor.kind : watched.kind);

/** Makes the source of one watch once the event filters are known (at build time). */
type PendingSource = (informers: InformerSource, filters: readonly Predicate<KubeObject>[]) => EventSource;

export class ControllerBuilder<T extends KubeObject> {
  readonly #name: string;
  readonly #descriptor: ResourceDescriptor<T>;
  readonly #deps: ControllerDeps;
  readonly #predicates: Predicate<T>[] = [];
  readonly #filters: Predicate<KubeObject>[] = [];
  readonly #watches: PendingSource[] = [];
  readonly #problems: string[] = [];
  #options: ControllerOptions = {};
  #built = false;

  constructor(name: string, descriptor: ResourceDescriptor<T>, deps: ControllerDeps) {
    this.#name = name;
    this.#descriptor = descriptor;
    this.#deps = deps;
  }

  /** Predicates for the events of the reconciled kind only. */
  withPredicates(...predicates: Predicate<T>[]): this {
    this.#predicates.push(...predicates);
    return this;
  }

  /**
   * Reconciles the controller owner of objects of `descriptor`'s kind when they change: its
   * ownerReference with `controller: true` pointing at the reconciled kind (any version).
   */
  owns<O extends KubeObject>(descriptor: ResourceDescriptor<O>, options: { predicates?: Predicate<O>[] } = {}): this {
    const owner = this.#descriptor;
    this.#watches.push((informers, filters) =>
      informerSource(informers.informerFor(descriptor), enqueueOwner<O>(owner), [...filters, ...(options.predicates ?? [])])
    );
    return this;
  }

  /**
   * Reconciles whatever `map` answers for objects of a kind when they change: the kind's informer
   * (`descriptor`), or one the controller already chose (a projected informer, which caches less).
   */
  watches<O extends KubeObject>(watched: ResourceDescriptor<O> | Informer<O>, map: MapFn<O>, options: { predicates?: Predicate<O>[] } = {}): this {
    const chosen = chosenInformer(watched);
    if (typeof map !== 'function') this.#problems.push(`watches(${kindOf(watched)}): the map function is missing`);
    this.#watches.push((informers, filters) =>
      informerSource(chosen ?? informers.informerFor(watched as ResourceDescriptor<O>), enqueueFromMap(map), [...filters, ...(options.predicates ?? [])])
    );
    return this;
  }

  /**
   * Reconciles what `handler` answers for each event of a kind (its informer, or one the controller
   * chose, as for `watches`): for mappings that depend on the event itself (an update's old and new
   * object together), where `watches` maps each object alone.
   */
  watchesEvents<O extends KubeObject>(
    watched: ResourceDescriptor<O> | Informer<O>,
    handler: EventHandler<O>,
    options: { predicates?: Predicate<O>[] } = {},
  ): this {
    const chosen = chosenInformer(watched);
    if (typeof handler !== 'function') this.#problems.push(`watchesEvents(${kindOf(watched)}): the event handler is missing`);
    this.#watches.push((informers, filters) =>
      informerSource(chosen ?? informers.informerFor(watched as ResourceDescriptor<O>), handler, [...filters, ...(options.predicates ?? [])])
    );
    return this;
  }

  /**
   * Requests from a source that is not an informer of the management cluster (controller-runtime's
   * WatchesRawSource), e.g. watches of workload clusters. Event filters do not apply: the source
   * decides what it delivers.
   */
  watchesRawSource(source: EventSource): this {
    if (typeof source?.subscribe !== 'function') this.#problems.push('watchesRawSource: the source has no subscribe()');
    this.#watches.push(() => source);
    return this;
  }

  /** A predicate every event of every source must pass (research 0.6: applied to mapped sources too, E-20). */
  withEventFilter(predicate: Predicate<KubeObject>): this {
    this.#filters.push(predicate);
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** Checks the wiring, requests the informers and returns the controller (not started). */
  build(reconciler: Reconciler | ReconcileFn): Controller {
    const problems = [...this.#problems, ...this.#check(reconciler)];
    if (problems.length > 0) throw new ControllerBuildError(this.#name, problems);
    this.#built = true;
    const { informers, registry, log, clock } = this.#deps;
    const filters = [...this.#filters];
    const reconciled = informers.informerFor(this.#descriptor);
    const primary = informerSource(reconciled, enqueueSelf<T>(), [...filters, ...this.#predicates]);
    const recorder = this.#deps.events;
    return new Controller({
      name: this.#name,
      kind: this.#descriptor.kind,
      group: this.#descriptor.group,
      reconciler,
      sources: [primary, ...this.#watches.map((make) => make(informers, filters))],
      options: this.#options,
      ...(recorder ? { failureEvents: { recorder, objectOf: (request: Request) => reconciled.store.get(request) } } : {}),
      ...(registry ? { registry } : {}),
      ...(log ? { log } : {}),
      ...(clock ? { clock } : {}),
    });
  }

  #check(reconciler: Reconciler | ReconcileFn): string[] {
    const problems: string[] = [];
    if (this.#built) problems.push('build() was already called; make a new builder for a second controller');
    if (!NAME.test(this.#name)) problems.push(`name "${this.#name}" must be lower-case letters, digits, '-' or '.'`);
    if (!this.#descriptor?.kind) problems.push('the reconciled kind has no descriptor');
    if (!this.#deps?.informers) problems.push('no informer source');
    const ok = typeof reconciler === 'function' || typeof (reconciler as Partial<Reconciler> | undefined)?.reconcile === 'function';
    if (!ok) problems.push('the reconciler must be a function or have a reconcile method');
    const { maxConcurrentReconciles: workers, reconcileTimeoutMs: timeout } = this.#options;
    if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1)) {
      problems.push(`maxConcurrentReconciles must be a whole number >= 1, got ${workers}`);
    }
    if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
      problems.push(`reconcileTimeoutMs must be a positive number of milliseconds, got ${timeout}`);
    }
    return problems;
  }
}

/** Starts wiring the controller `name` reconciling objects of `descriptor`'s kind. */
export function controllerFor<T extends KubeObject>(
  name: string,
  descriptor: ResourceDescriptor<T>,
  deps: ControllerDeps,
): ControllerBuilder<T> {
  return new ControllerBuilder(name, descriptor, deps);
}
