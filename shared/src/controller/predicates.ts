// Event filters: pure functions of the objects in a cache event that decide whether the event may
// enqueue anything. A missing method passes its events. Predicates see the *event object*, which for
// mapped watches is the source object (a BareMetalHost, a Cluster), not the object reconciled (E-20).
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { CacheEvent } from '../cache/types.ts';
import { WATCH_FILTER_LABEL } from '../meta/cluster-api-names.ts';
import { isExternallyManaged } from '../meta/externally-managed.ts';
import { hasPausedAnnotation } from '../meta/paused.ts';

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: Readonly<T>): boolean;
  update?(old: Readonly<T>, obj: Readonly<T>): boolean;
  delete?(obj: Readonly<T>): boolean;
}

/** Whether `event` passes `predicate`. */
export function admits<T extends KubeObject>(predicate: Predicate<T>, event: CacheEvent<T>): boolean {
  switch (event.type) {
    case 'add':
      return predicate.create?.(event.object) ?? true;
    case 'update':
      return predicate.update?.(event.old, event.object) ?? true;
    case 'delete':
      return predicate.delete?.(event.object) ?? true;
  }
}

/** Applies one test to the object of every kind of event (the new object for updates). */
function onEventObject<T extends KubeObject>(test: (obj: Readonly<T>) => boolean): Predicate<T> {
  return { create: test, update: (_old, obj) => test(obj), delete: test };
}

/** Passes an event only if every predicate does (controller-runtime's `And`). */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.every((p) => p.create?.(obj) ?? true),
    update: (old, obj) => predicates.every((p) => p.update?.(old, obj) ?? true),
    delete: (obj) => predicates.every((p) => p.delete?.(obj) ?? true),
  };
}

/** Passes an event if any predicate does (controller-runtime's `Or`, CAPI's `Any`); none given: nothing passes. */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.some((p) => p.create?.(obj) ?? true),
    update: (old, obj) => predicates.some((p) => p.update?.(old, obj) ?? true),
    delete: (obj) => predicates.some((p) => p.delete?.(obj) ?? true),
  };
}

/** Inverts a predicate; a missing method (which passes) becomes one that drops. */
export function not<T extends KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (obj) => !(predicate.create?.(obj) ?? true),
    update: (old, obj) => !(predicate.update?.(old, obj) ?? true),
    delete: (obj) => !(predicate.delete?.(obj) ?? true),
  };
}

/**
 * Updates pass only when `metadata.generation` changed, i.e. the spec changed: status-only and
 * metadata-only writes are dropped. Creates and deletes pass.
 */
export const generationChanged: Predicate = {
  update: (old, obj) => old.metadata.generation !== obj.metadata.generation,
};

/** Drops every event of an object carrying `cluster.x-k8s.io/paused` (any value). Research 0.6. */
export const resourceNotPaused: Predicate = onEventObject((obj) => !hasPausedAnnotation(obj));

/**
 * Passes only the update that adds `cluster.x-k8s.io/paused`. OR-ed with resourceNotPaused, it lets
 * a controller write its Paused condition (and pause what it owns) when the pause happens, instead of
 * at some later, unrelated event.
 */
export const pausingUpdate: Predicate = {
  create: () => false,
  update: (old, obj) => !hasPausedAnnotation(old) && hasPausedAnnotation(obj),
  delete: () => false,
};

/**
 * With a non-empty `value`, passes only objects labelled `cluster.x-k8s.io/watch-filter=<value>`;
 * with an empty value, passes everything (no `--watch-filter`). Research 0.6.
 */
export function hasWatchFilterLabel(value: string): Predicate {
  if (value === '') return {};
  return onEventObject((obj) => obj.metadata.labels?.[WATCH_FILTER_LABEL] === value);
}

/** The common CAPM3 event filter of research 0.6: not paused, and the watch-filter label if one is set. */
export function resourceNotPausedAndHasFilterLabel(value: string): Predicate {
  return and(resourceNotPaused, hasWatchFilterLabel(value));
}

/** Drops objects managed by something else (`cluster.x-k8s.io/managed-by`, any value). Research C-3. */
export const resourceNotExternallyManaged: Predicate = onEventObject((obj) => !isExternallyManaged(obj));

/**
 * For Cluster objects (research C-2, CAPI's `ClusterUnpaused`): a create passes when `spec.paused` is
 * not true; an update passes only when `spec.paused` goes from true to false; deletes never pass.
 */
export const clusterUnpaused: Predicate<Cluster> = {
  create: (cluster) => cluster.spec?.paused !== true,
  update: (old, cluster) => old.spec?.paused === true && cluster.spec?.paused !== true,
  delete: () => false,
};
