// An infrastructure cluster with this annotation is managed by someone else: the controller must
// not touch it (Cluster API's IsExternallyManaged; research C-3).
import type { ObjectMeta } from '@metal3-ts/generated';

/** Any value counts; presence is what matters. */
export const MANAGED_BY_ANNOTATION = 'cluster.x-k8s.io/managed-by';

export function isExternallyManaged(obj: { metadata?: ObjectMeta }): boolean {
  return obj.metadata?.annotations?.[MANAGED_BY_ANNOTATION] !== undefined;
}
