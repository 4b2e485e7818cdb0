// The v1beta2 Paused condition, as Cluster API's EnsurePausedCondition computes it (research C-10).
// Upstream writes it in a patch of its own and requeues after 30 s, so a new Metal3Cluster needs a
// second reconcile before anything else happens (E-2); here the condition is set in memory and goes
// out with the reconcile's one status patch.
import type { V1Beta2ConditionInput } from '@metal3-ts/shared/conditions/types';
import { CAPI_PAUSED_ANNOTATION } from '@metal3-ts/shared/meta/cluster-api-names';
import { hasPausedAnnotation, type PausableCluster } from '@metal3-ts/shared/meta/paused';
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { PAUSED, V1Beta2Reason } from '../names.ts';

/** Why the Metal3Cluster is paused, in upstream's words; empty when it is not. */
export function pauseCauses(cluster: PausableCluster | undefined, m3c: Readonly<Metal3Cluster>): string[] {
  const causes: string[] = [];
  if (cluster?.spec?.paused === true) causes.push('Cluster spec.paused is set to true');
  if (hasPausedAnnotation(m3c)) causes.push(`Metal3Cluster has the ${CAPI_PAUSED_ANNOTATION} annotation`);
  return causes;
}

/** True/Paused with the causes, or False/NotPaused; observedGeneration is the object's generation. */
export function pausedCondition(cluster: PausableCluster | undefined, m3c: Readonly<Metal3Cluster>): V1Beta2ConditionInput {
  const causes = pauseCauses(cluster, m3c);
  const generation = m3c.metadata.generation;
  return {
    type: PAUSED,
    ...(causes.length > 0
      ? { status: 'True', reason: V1Beta2Reason.Paused, message: causes.join(', ') }
      : { status: 'False', reason: V1Beta2Reason.NotPaused, message: '' }),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}
