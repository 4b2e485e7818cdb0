// Phase `finalizer removal` (C-11, E-12, E-13): while machines of the Cluster exist, the deletion is
// a wait whose message names them (recorded for deriveStatus, looked at again when one goes, and
// after the safety-net wait); once none is left our finalizer comes off with a guarded write and the
// pass is over (`released`: the object is on its way out, its status is not written).
// Writes: `patch metal3clusters` (JSON patch); on a failed guard, `get metal3clusters`.
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import type { ClusterContext, PhaseResult } from '../context.ts';
import { deletionWait } from '../decisions/delete.ts';
import { METAL3_CLUSTER_FINALIZER } from '../names.ts';
import type { ClusterScope } from '../scope.ts';

export async function reconcileDeletion(ctx: ClusterContext, scope: ClusterScope): Promise<PhaseResult> {
  const clusterName = scope.decision.kind === 'Delete' ? scope.decision.clusterName : undefined;
  const wait = deletionWait(clusterName, scope.machines);
  if (wait !== undefined) {
    scope.observed.outcome = { kind: 'Deleting', message: wait };
    scope.log.info(wait);
    return ctx.safetyNet;
  }
  scope.log.info('No machines of the cluster left, removing the finalizer');
  await removeFinalizerGuarded(scope.api, structuredClone(scope.m3c) as Metal3Cluster, METAL3_CLUSTER_FINALIZER);
  scope.observed.released = true;
  return {};
}
