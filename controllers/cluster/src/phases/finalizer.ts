// Phase `finalizer` (C-12): our finalizer goes on once Cluster API has adopted the object, as a
// guarded write of its own, so the Metal3Cluster cannot disappear while machines of its Cluster exist.
// The written object becomes the working copy. Writes: `patch metal3clusters` (JSON patch).
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ensureFinalizer } from '@metal3-ts/shared/meta/ensure-finalizer';
import type { ClusterContext, PhaseResult } from '../context.ts';
import { METAL3_CLUSTER_FINALIZER } from '../names.ts';
import type { ClusterScope } from '../scope.ts';

export async function reconcileFinalizer(_ctx: ClusterContext, scope: ClusterScope): Promise<PhaseResult> {
  const written = await ensureFinalizer(scope.api, scope.m3c, METAL3_CLUSTER_FINALIZER);
  if (written) scope.m3c = structuredClone(written) as Metal3Cluster;
  return undefined;
}
