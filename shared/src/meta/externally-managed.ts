// An infrastructure cluster with this annotation is managed by someone else: the controller must
// not touch it (Cluster API's IsExternallyManaged; research C-3).
import type { ObjectMeta } from '@metal3-ts/generated';
import { MANAGED_BY_ANNOTATION } from './cluster-api-names.ts';

export function isExternallyManaged(obj: { metadata?: ObjectMeta }): boolean {
  return obj.metadata?.annotations?.[MANAGED_BY_ANNOTATION] !== undefined;
}
