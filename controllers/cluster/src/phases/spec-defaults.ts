// Phase `spec defaults` (W-2, C-5): writes the defaulted spec fields upstream's webhook would have,
// each guarded by a JSON-Patch `test` of the value it was computed from. A concurrent edit of those
// fields fails the guard; the harness's retryOnConflict re-reads the object and plans again (the
// edit may have made the write unnecessary). The written object becomes the working copy.
// Writes: `patch metal3clusters` (JSON patch); on a failed guard, `get metal3clusters`.
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import { isStaleOrGuardFailed, retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import type { ClusterContext, PhaseResult } from '../context.ts';
import { specDefaultsToWrite } from '../decisions/defaults.ts';
import type { ClusterScope } from '../scope.ts';

export async function reconcileSpecDefaults(_ctx: ClusterContext, scope: ClusterScope): Promise<PhaseResult> {
  const name = scope.m3c.metadata.name ?? '';
  const written = await retryOnConflict(
    scope.m3c,
    async (current) => {
      const ops = specDefaultsToWrite(current.spec);
      return ops ? await scope.api.jsonPatch(name, ops) : current;
    },
    { what: `${scope.object}: writing its spec defaults`, reread: () => ignoreNotFound(scope.api.get(name)), retryable: isStaleOrGuardFailed },
  );
  if (written) scope.m3c = structuredClone(written) as Metal3Cluster;
  return undefined;
}
