// Event handlers turn a cache event into the requests to enqueue. They are pure, so a watch's mapping
// is tested with a table of events. For an update both the old and the new object are mapped: an
// object that moved from one owner (or consumer) to another wakes both.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import type { CacheEvent } from '../cache/types.ts';
import { apiGroupOf } from '../meta/owner-references.ts';
import { type Request, requestKey } from '../reconcile/reconcile.ts';

export type EventHandler<T extends KubeObject> = (event: CacheEvent<T>) => readonly Request[];

/** Maps one object to the requests it should trigger (e.g. a BareMetalHost to its consumer). */
export type MapFn<T extends KubeObject> = (obj: Readonly<T>) => readonly Request[];

/** The request naming `obj` itself. */
export function requestFor(obj: Readonly<KubeObject>): Request {
  const { namespace, name } = obj.metadata;
  return namespace ? { namespace, name: name ?? '' } : { name: name ?? '' };
}

/** The requests without repeats or empty names, in first-seen order. */
export function distinctRequests(requests: Iterable<Request>): Request[] {
  const byKey = new Map<string, Request>();
  for (const r of requests) if (r.name !== '' && !byKey.has(requestKey(r))) byKey.set(requestKey(r), r);
  return [...byKey.values()];
}

function objectsOf<T extends KubeObject>(event: CacheEvent<T>): readonly Readonly<T>[] {
  return event.type === 'update' ? [event.old, event.object] : [event.object];
}

/** Enqueues the object of the event: the primary watch of a controller. */
export function enqueueSelf<T extends KubeObject>(): EventHandler<T> {
  return (event) => [requestFor(event.object)];
}

/** The owner references of `obj` pointing at a kind of `owner`'s group and kind (any version). */
export function ownerRequests(
  obj: Readonly<KubeObject>,
  owner: Pick<ResourceDescriptor, 'group' | 'kind' | 'namespaced'>,
  onlyController = true,
): Request[] {
  const requests: Request[] = [];
  for (const ref of obj.metadata.ownerReferences ?? []) {
    if (onlyController && ref.controller !== true) continue;
    if (ref.kind !== owner.kind || apiGroupOf(ref.apiVersion) !== owner.group) continue;
    // Owner references never cross namespaces: a namespaced owner lives in the object's namespace.
    if (!owner.namespaced) requests.push({ name: ref.name });
    else if (obj.metadata.namespace) requests.push({ namespace: obj.metadata.namespace, name: ref.name });
  }
  return requests;
}

/**
 * Enqueues the owner of the event object: by default only the controller owner (the reference with
 * `controller: true`) of `owner`'s group and kind, as controller-runtime's `Owns`.
 */
export function enqueueOwner<T extends KubeObject>(
  owner: Pick<ResourceDescriptor, 'group' | 'kind' | 'namespaced'>,
  options: { onlyController?: boolean } = {},
): EventHandler<T> {
  const onlyController = options.onlyController ?? true;
  return (event) => distinctRequests(objectsOf(event).flatMap((obj) => ownerRequests(obj, owner, onlyController)));
}

/** Enqueues whatever `map` answers for the event object (old and new objects for an update). */
export function enqueueFromMap<T extends KubeObject>(map: MapFn<T>): EventHandler<T> {
  return (event) => distinctRequests(objectsOf(event).flatMap((obj) => map(obj)));
}
