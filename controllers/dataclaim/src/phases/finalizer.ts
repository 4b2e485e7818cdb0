// Our finalizer on the claim (DT-11, DT-15, §0.1): added before anything is allocated, so the claim
// cannot disappear with a Metal3Data left behind; removed last on release. Both are JSON patches with
// `test` guards (shared ensure-finalizer), so the Metal3Machine controller's finalizer, written by
// another process, is never lost or undone.
import { type Metal3DataClaim, Metal3DataClaimResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { DATA_CLAIM_FINALIZER } from '../names.ts';
import { type PhaseContext, step } from '../phase.ts';
import type { ClaimScope } from '../scope.ts';

const claimsApi = (ctx: PhaseContext, scope: ClaimScope) => ctx.deps.client.api(Metal3DataClaimResource, scope.claim.metadata.namespace ?? '');

/** Writes: the claim's metadata.finalizers (ours appended). Records the written claim. */
export async function addFinalizer(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const written = await step(scope, 'finalizer', () => ensureFinalizer(claimsApi(ctx, scope), scope.claim as Metal3DataClaim, DATA_CLAIM_FINALIZER));
  if (written) scope.observed.claim = written;
}

/** Writes: the claim's metadata.finalizers (ours removed; the Metal3Machine's stays, DC-4). */
export async function removeFinalizer(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  await step(scope, 'finalizer removal', () => removeFinalizerGuarded(claimsApi(ctx, scope), scope.claim as Metal3DataClaim, DATA_CLAIM_FINALIZER));
  ctx.log.info('released the claim');
}
