// Which Metal3Data serves the claim (DT-11, DT-14): the one its status names, else the lowest index
// made for it, from the cache. A recorded one the cache has not seen is read from the server: another
// replica's fresh Metal3Data, or one that is gone (then its index is tried first when a new one is made).
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import { Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { belongsToClaim } from '../association.ts';
import { dataOfClaim } from '../index-space.ts';
import { indexFromDataName } from '../names.ts';
import { type PhaseContext, step } from '../phase.ts';
import type { ClaimScope } from '../scope.ts';

/** Writes nothing. Records `data`, or `preferred` when the recorded Metal3Data is gone. */
export async function findData(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const { observed } = scope;
  const claim = observed.claim;
  const keep = dataOfClaim(claim, scope.datas).keep;
  if (keep) {
    observed.data = keep;
    return;
  }
  const recorded = claim.status?.renderedData?.name;
  if (!recorded) return;
  const datas = ctx.deps.client.api(Metal3DataResource, claim.metadata.namespace ?? '');
  const live = await step(scope, 'Metal3Data read', () => ignoreNotFound(datas.get(recorded)));
  if (live && belongsToClaim(live, claim)) observed.data = live;
  else if (!live) observed.preferred = indexFromDataName(scope.template?.metadata.name ?? '', recorded);
}
