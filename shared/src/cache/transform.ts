// What the cache keeps of each object. Controllers never read managedFields (server-side apply's
// bookkeeping), yet it is often a third of an object's JSON; dropping it on the way in is the
// informer's default, as controller-runtime's TransformStripManagedFields. A controller that reads
// only the metadata of a kind asks for the metadata projection instead of the whole object.
import type { KubeObject } from '@metal3-ts/generated';
import type { Projection } from './types.ts';

/** Rewrites a freshly decoded object before it is frozen and cached; may mutate and return it. */
export type CacheTransform<T extends KubeObject> = (object: T) => T;

export function stripManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

/** Keeps objects exactly as served. */
export const keepEverything = <T extends KubeObject>(object: T): T => object;

/** An object's type and metadata: what a controller keeps of a kind it only maps, counts or sees deleted. */
export type MetadataOf<T extends KubeObject> = Pick<T, 'apiVersion' | 'kind' | 'metadata'>;

/** The projection to MetadataOf (shared by every controller asking for it: one name, one function). */
export function metadataProjection<T extends KubeObject>(): Projection<T, MetadataOf<T>> {
  return METADATA as Projection<T, MetadataOf<T>>;
}

const METADATA: Projection<KubeObject, KubeObject> = {
  name: 'metadata',
  project: ({ apiVersion, kind, metadata }) => ({ apiVersion, kind, metadata }),
  metadataOnly: true,
};
