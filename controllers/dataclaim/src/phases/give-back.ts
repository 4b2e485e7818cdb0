// Metal3Data the claim must not keep (DT-15 order: our finalizer off, then delete). Once the status
// write has settled who serves the claim: a Metal3Data we made for a claim another writer bound
// elsewhere (or that is going) goes back, and so does a second one made for the same claim.
import type { Api } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Metal3Data, Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { dataOfClaim } from '../index-space.ts';
import { DATA_CLAIM_FINALIZER } from '../names.ts';
import { type PhaseContext, step } from '../phase.ts';
import type { ClaimScope } from '../scope.ts';

/** Gives back a Metal3Data: our finalizer off, then delete (a Metal3Data already gone is fine). */
export async function discardData(api: Pick<Api<Metal3Data>, 'get' | 'jsonPatch' | 'delete'>, data: Readonly<Metal3Data>): Promise<void> {
  await removeFinalizerGuarded(api, data as Metal3Data, DATA_CLAIM_FINALIZER);
  try {
    await api.delete(data.metadata.name ?? '');
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Writes: Metal3Data finalizers and deletes (only ours, only those the claim does not use). */
export async function giveBack(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const { data, binding } = scope.observed;
  if (!data || !binding) return;
  const datas = ctx.deps.client.api(Metal3DataResource, data.metadata.namespace ?? '');
  if (binding.kind !== 'Bound') {
    ctx.log.info('giving back a Metal3Data the claim does not use', { metal3Data: data.metadata.name, outcome: binding.kind });
    await step(scope, 'Metal3Data release', () => discardData(datas, data));
    return;
  }
  for (const duplicate of dataOfClaim(scope.claim, scope.datas).duplicates) {
    if (duplicate.metadata.name === data.metadata.name) continue;
    ctx.log.info('giving back a second Metal3Data made for the same claim', { metal3Data: duplicate.metadata.name });
    await step(scope, 'Metal3Data release', () => discardData(datas, duplicate));
  }
}
