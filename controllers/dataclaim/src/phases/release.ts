// DT-15: a claim being deleted gives back its Metal3Data (our finalizer off it, then deleted; the
// Metal3Data controller's own finalizer keeps it until its IP addresses are released, D-7). The index
// becomes free once the old Metal3Data is really gone: until then its name is taken (E-34). The
// ledger entry and our finalizer are other phases (ledger.ts, finalizer.ts).
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Metal3Data, Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { belongsToClaim } from '../association.ts';
import { REASONS, UPSTREAM_MESSAGES } from '../names.ts';
import { type PhaseContext, step } from '../phase.ts';
import type { ClaimScope } from '../scope.ts';
import { discardData } from './give-back.ts';

/** Writes: the claim's Metal3Data (finalizer off, delete). Records `released`, or upstream's problem. */
export async function releaseDatas(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const api = ctx.deps.client.api(Metal3DataResource, scope.claim.metadata.namespace ?? '');
  const datas = await claimDatas(ctx, scope);
  for (const data of datas) {
    await step(scope, 'Metal3Data release', () => discardData(api, data)).catch((error: unknown) => {
      scope.observed.problem = { reason: REASONS.dataWriteFailed, message: UPSTREAM_MESSAGES.deleteFailed };
      throw error;
    });
  }
  if (datas.length === 0) ctx.log.info('no Metal3Data to release for this claim');
  else ctx.log.info('gave back the Metal3Data of the claim', { metal3Data: datas.map((d) => d.metadata.name) });
  scope.observed.released = true;
}

/** This claim's Metal3Data: by the index, plus the one its status names if the cache has not seen it. */
async function claimDatas(ctx: PhaseContext, scope: ClaimScope): Promise<Readonly<Metal3Data>[]> {
  const claim = scope.claim;
  const mine = scope.datas.filter((d) => belongsToClaim(d, claim));
  const named = claim.status?.renderedData?.name;
  if (!named || mine.some((d) => d.metadata.name === named)) return [...mine];
  const namespace = claim.metadata.namespace ?? '';
  let data: Readonly<Metal3Data> | undefined = ctx.deps.informers.datas.store.get({ namespace, name: named });
  data ??= await step(scope, 'Metal3Data read', () => ignoreNotFound(ctx.deps.client.api(Metal3DataResource, namespace).get(named)));
  return data && belongsToClaim(data, claim) ? [...mine, data] : [...mine];
}
