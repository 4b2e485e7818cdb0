// Pause detection, as Cluster API's annotations.IsPaused: an object is paused by its own annotation
// or by its Cluster. Pure functions: callers fetch the Cluster.
import type { ObjectMeta } from '@metal3-ts/generated';
import { CAPI_PAUSED_ANNOTATION } from './cluster-api-names.ts';

interface WithMeta {
  metadata?: ObjectMeta;
}

/** The part of a CAPI Cluster (v1beta1 or v1beta2) pause detection reads. */
export interface PausableCluster {
  spec?: { paused?: boolean };
}

export function hasPausedAnnotation(obj: WithMeta): boolean {
  return obj.metadata?.annotations?.[CAPI_PAUSED_ANNOTATION] !== undefined;
}

/** Paused when the owning Cluster has spec.paused, or when `obj` carries the paused annotation. */
export function isPaused(cluster: PausableCluster | undefined, obj: WithMeta): boolean {
  return cluster?.spec?.paused === true || hasPausedAnnotation(obj);
}
