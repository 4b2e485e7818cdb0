// What the cache keeps of each object. Controllers never read managedFields (server-side apply's
// bookkeeping), yet it is often a third of an object's JSON; dropping it on the way in is the
// informer's default, as controller-runtime's TransformStripManagedFields.
import type { KubeObject } from '@metal3-ts/generated';

/** Rewrites a freshly decoded object before it is frozen and cached; may mutate and return it. */
export type CacheTransform<T extends KubeObject> = (object: T) => T;

export function stripManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

/** Keeps objects exactly as served. */
export const keepEverything = <T extends KubeObject>(object: T): T => object;
