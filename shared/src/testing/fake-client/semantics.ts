// What the apiserver does to an object on its way into storage, as pure functions: server-owned
// metadata on create (uid, creationTimestamp, generation), what an update may not change (uid,
// creation and deletion timestamps; status through the main resource and everything but status
// through /status, for kinds with that subresource), generation bumps on spec change only (custom
// resources), and no new finalizer on an object being deleted. A refusal is a Reply to send back.
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { jsonEqual } from './patches.ts';
import { badRequest, invalid, type Reply, unprocessable } from './replies.ts';

/**
 * A CustomResourceDefinition's kind (its group has a dot and is not a Kubernetes one). Built-in
 * kinds differ in two ways the fake keeps: PUT without a resourceVersion is allowed, and they get
 * no generation here (the ones the controllers use, Secret, ConfigMap, Node, Event, Lease, have none).
 */
export const isCustomResource = (d: ResourceDescriptor): boolean => d.group.includes('.') && !d.group.endsWith('.k8s.io');

const tracksGeneration = isCustomResource;

type Obj = KubeObject & { status?: unknown };

/** Everything the generation ignores: metadata, and status when it is a subresource. */
function generationRelevant(obj: Obj, d: ResourceDescriptor): unknown {
  const { metadata: _metadata, status, ...rest } = obj;
  return d.statusSubresource ? rest : { ...rest, status };
}

/** Empty metadata lists and maps are not stored: Kubernetes serialises ObjectMeta with omitempty. */
function withoutEmpty(obj: Obj): Obj {
  const meta = obj.metadata as Record<string, unknown>;
  for (const field of ['finalizers', 'labels', 'annotations', 'ownerReferences', 'managedFields']) {
    const value = meta[field];
    if (value === null || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) {
      delete meta[field];
    }
  }
  return obj;
}

export interface CreateStamp {
  readonly uid: string;
  readonly now: string;
  readonly name: string;
}

/** Checks a create body against the URL; the refusal, or undefined when it may be stored. */
export function createProblem(body: Obj, d: ResourceDescriptor, namespace: string | undefined): Reply | undefined {
  if (typeof body !== 'object' || body === null || typeof body.metadata !== 'object') return badRequest('the object has no metadata');
  if (body.apiVersion !== d.apiVersion || body.kind !== d.kind) {
    return badRequest(`the API version in the data (${body.apiVersion}) or kind (${body.kind}) does not match the expected ${d.apiVersion} ${d.kind}`);
  }
  if (body.metadata.namespace && namespace && body.metadata.namespace !== namespace) {
    return badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (!body.metadata.name && !body.metadata.generateName) {
    return unprocessable(`${d.kind} is invalid: metadata.name: Required value: name or generateName is required`);
  }
  return undefined;
}

/** The object as stored by a create (without its resourceVersion, which the store assigns). */
export function created(body: Obj, d: ResourceDescriptor, namespace: string | undefined, stamp: CreateStamp): Obj {
  const { managedFields: _m, deletionTimestamp: _d, deletionGracePeriodSeconds: _g, resourceVersion: _r, ...metadata } = structuredClone(body.metadata);
  const obj: Obj = { ...structuredClone(body), metadata: { ...metadata, name: stamp.name, uid: stamp.uid, creationTimestamp: stamp.now } };
  if (d.namespaced) obj.metadata.namespace = namespace;
  else delete obj.metadata.namespace;
  if (tracksGeneration(d)) obj.metadata.generation = 1;
  // A custom resource's status is written only through /status once that subresource is on.
  if (isCustomResource(d) && d.statusSubresource) delete obj.status;
  return withoutEmpty(obj);
}

/**
 * The object an update (PUT or PATCH result) stores over `old`, or the refusal. `subresource` is
 * 'status' for writes to /status. The caller has checked the resourceVersion.
 */
export function updated(old: Obj, next: Obj, d: ResourceDescriptor, subresource: string | undefined): Obj | Reply {
  const name = old.metadata.name ?? '';
  if (typeof next !== 'object' || next === null || typeof next.metadata !== 'object') return badRequest('the object has no metadata');
  if (next.metadata.name !== undefined && next.metadata.name !== name) {
    return badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (next.metadata.namespace && next.metadata.namespace !== old.metadata.namespace) {
    return badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (next.metadata.uid && next.metadata.uid !== old.metadata.uid) {
    return invalid(d, name, `metadata.uid: Invalid value: "${next.metadata.uid}": field is immutable`);
  }
  let result: Obj;
  if (subresource === 'status') {
    result = structuredClone(old);
    if (next.status === undefined) delete result.status;
    else result.status = structuredClone(next.status);
  } else {
    const { managedFields: _m, ...metadata } = structuredClone(next.metadata);
    result = { ...structuredClone(next), apiVersion: d.apiVersion, kind: d.kind, metadata };
    if (d.statusSubresource) {
      if (old.status === undefined) delete result.status;
      else result.status = structuredClone(old.status);
    }
  }
  const kept = old.metadata;
  result.metadata = { ...result.metadata, name, uid: kept.uid, creationTimestamp: kept.creationTimestamp };
  if (d.namespaced) result.metadata.namespace = kept.namespace;
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (kept[field] === undefined) delete result.metadata[field];
    else (result.metadata as Record<string, unknown>)[field] = kept[field];
  }
  if (kept.deletionTimestamp) {
    const before = new Set(kept.finalizers ?? []);
    const added = (result.metadata.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) return invalid(d, name, 'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted');
  }
  if (tracksGeneration(d) && !jsonEqual(generationRelevant(old, d), generationRelevant(result, d))) {
    result.metadata.generation = (kept.generation ?? 0) + 1;
  }
  return withoutEmpty(result);
}
