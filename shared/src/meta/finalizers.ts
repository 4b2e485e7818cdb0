// Finalizers in memory, for objects that the deferred patch will write. For a write that must not
// race with other controllers, use ensureFinalizer / removeFinalizerGuarded instead.
import type { ObjectMeta } from '@metal3-ts/generated';

interface WithMeta {
  metadata: ObjectMeta;
}

export function hasFinalizer(obj: WithMeta, name: string): boolean {
  return obj.metadata.finalizers?.includes(name) ?? false;
}

/** Adds the finalizer unless present; returns whether the object changed. */
export function addFinalizer(obj: WithMeta, name: string): boolean {
  if (hasFinalizer(obj, name)) return false;
  (obj.metadata.finalizers ??= []).push(name);
  return true;
}

/** Removes every occurrence of the finalizer; returns whether the object changed. */
export function removeFinalizer(obj: WithMeta, name: string): boolean {
  const finalizers = obj.metadata.finalizers;
  if (!finalizers?.includes(name)) return false;
  const rest = finalizers.filter((f) => f !== name);
  // An empty list is dropped so a merge patch deletes the field rather than writing [].
  if (rest.length === 0) delete obj.metadata.finalizers;
  else obj.metadata.finalizers = rest;
  return true;
}
