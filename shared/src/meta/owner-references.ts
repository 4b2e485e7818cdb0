// Owner references, compared the way Cluster API compares them: by API group (not version), kind and
// name, so an owner served at a newer version is still the same owner.
import type { KubeObject, ObjectMeta, OwnerReference } from '@metal3-ts/generated';

interface WithMeta {
  metadata: ObjectMeta;
}

/**
 * The API group of an apiVersion the way Kubernetes parses it (schema.ParseGroupVersion):
 * `group/version` → group, a bare `version` (or empty, or `/`) → the core group `''`, more than one
 * `/` → undefined (unparsable; the apiserver refuses such owner references). The one parser of the
 * project: owner references, consumer references and watches all compare groups through it.
 */
export function apiGroupOf(apiVersion: string): string | undefined {
  if (apiVersion === '' || apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  if (parts.length === 1) return '';
  if (parts.length === 2) return parts[0];
  return undefined;
}

/** An unparsable group (undefined) refers to nothing. */
function refersTo(ref: OwnerReference, group: string | undefined, kind: string, name?: string): boolean {
  return group !== undefined && apiGroupOf(ref.apiVersion) === group && ref.kind === kind && (name === undefined || ref.name === name);
}

/** The first owner reference of that group and kind, at any version. */
export function getOwnerByKind(obj: WithMeta, group: string, kind: string): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => refersTo(ref, group, kind));
}

export function hasOwner(obj: WithMeta, group: string, kind: string): boolean {
  return getOwnerByKind(obj, group, kind) !== undefined;
}

/** The owner reference marked `controller: true`, if any (there is at most one). */
export function getControllerOf(obj: WithMeta): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export function isControlledBy(obj: WithMeta, owner: KubeObject): boolean {
  const controller = getControllerOf(obj);
  return controller !== undefined && owner.metadata.uid !== undefined && controller.uid === owner.metadata.uid;
}

/** Another object is already the controller: an object has at most one. */
export class AlreadyOwnedError extends Error {
  override name = 'AlreadyOwnedError';
  readonly owner: OwnerReference;

  constructor(owner: OwnerReference, wanted: KubeObject) {
    super(`already controlled by ${owner.kind} ${owner.name}, cannot set ${wanted.kind} ${wanted.metadata.name ?? ''} as controller`);
    this.owner = owner;
  }
}

/**
 * Points an owner reference at `owner`, in memory; returns whether the object changed. Idempotent:
 * an existing reference to the same owner (same group, kind and name) is updated in place, not
 * duplicated. `controller: true` also sets blockOwnerDeletion, as controller-runtime does.
 *
 * @throws AlreadyOwnedError when `controller` is asked and a different object is the controller.
 */
export function setOwnerReference(obj: WithMeta, owner: KubeObject, options: { controller?: boolean } = {}): boolean {
  const { name, uid } = owner.metadata;
  if (!name || !uid) throw new Error(`${owner.kind}: an owner needs a name and a uid (was it read from the server?)`);
  const group = apiGroupOf(owner.apiVersion);
  if (group === undefined) throw new Error(`${owner.kind} ${name}: cannot parse the owner's apiVersion ${owner.apiVersion}`);
  const refs = obj.metadata.ownerReferences ?? [];
  const wanted: OwnerReference = { apiVersion: owner.apiVersion, kind: owner.kind, name, uid };
  if (options.controller) {
    const controller = refs.find((ref) => ref.controller === true);
    if (controller && !refersTo(controller, group, owner.kind, name)) throw new AlreadyOwnedError(controller, owner);
    wanted.controller = true;
    wanted.blockOwnerDeletion = true;
  }
  const index = refs.findIndex((ref) => refersTo(ref, group, owner.kind, name));
  const existing = index >= 0 ? refs[index] : undefined;
  if (existing) {
    // Keep flags set by others unless we set them ourselves.
    const merged: OwnerReference = { ...existing, ...wanted };
    if (sameRef(existing, merged)) return false;
    refs[index] = merged;
  } else {
    refs.push(wanted);
  }
  obj.metadata.ownerReferences = refs;
  return true;
}

/** Removes every reference to `owner` (same group, kind and name); returns whether it changed. */
export function removeOwnerReference(obj: WithMeta, owner: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): boolean {
  const refs = obj.metadata.ownerReferences;
  const name = owner.metadata.name;
  if (!refs || !name) return false;
  const rest = refs.filter((ref) => !refersTo(ref, apiGroupOf(owner.apiVersion), owner.kind, name));
  if (rest.length === refs.length) return false;
  if (rest.length === 0) delete obj.metadata.ownerReferences;
  else obj.metadata.ownerReferences = rest;
  return true;
}

function sameRef(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}
