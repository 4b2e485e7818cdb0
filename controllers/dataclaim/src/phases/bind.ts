// DT-14 and DC-2: the claim's status.renderedData names its Metal3Data. The write carries the claim's
// resourceVersion, so it is also the lock on the claim: if two replicas each made a Metal3Data for
// the same claim, only one can record it, and the other finds the claim bound elsewhere and gives its
// own back. (Indexes are locked by the Metal3Data names; this locks "one Metal3Data per claim".)
import type { Api } from '@metal3-ts/generated';
import { isConflict, isNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Metal3Data, Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { DATA_CLAIM_FINALIZER } from '../names.ts';

export type BindOutcome =
  /** The claim names `data` (written now, or already). */
  | { readonly kind: 'Bound'; readonly claim: Readonly<Metal3DataClaim> }
  /** Another writer recorded a different Metal3Data for the claim first. */
  | { readonly kind: 'BoundElsewhere'; readonly name: string }
  /** The claim is gone or being deleted: release takes over. */
  | { readonly kind: 'ClaimGone' };

/** Whether the claim's status already names `data` and carries no error. */
export function isBoundTo(claim: Readonly<Metal3DataClaim>, data: Readonly<Metal3Data>): boolean {
  const ref = claim.status?.renderedData;
  return ref?.name === data.metadata.name && ref?.namespace === data.metadata.namespace && !claim.status?.errorMessage;
}

export async function bindClaim(
  api: Pick<Api<Metal3DataClaim>, 'mergePatchStatus' | 'get'>,
  claim: Readonly<Metal3DataClaim>,
  data: Readonly<Metal3Data>,
  attempts = 5,
): Promise<BindOutcome> {
  let current = claim;
  for (let attempt = 1; ; attempt++) {
    if (isBoundTo(current, data)) return { kind: 'Bound', claim: current };
    // After a conflict: a name other than ours and other than the one we set out to replace was
    // written by someone else in between.
    const other = current.status?.renderedData?.name;
    if (current !== claim && other && other !== data.metadata.name && other !== claim.status?.renderedData?.name) {
      return { kind: 'BoundElsewhere', name: other };
    }
    try {
      const written = await api.mergePatchStatus(current.metadata.name ?? '', {
        metadata: { resourceVersion: current.metadata.resourceVersion ?? '' },
        status: { renderedData: { name: data.metadata.name ?? '', namespace: data.metadata.namespace ?? '' }, errorMessage: null },
      });
      return { kind: 'Bound', claim: written };
    } catch (error) {
      if (isNotFound(error)) return { kind: 'ClaimGone' };
      if (!isConflict(error) || attempt >= attempts) throw error;
    }
    try {
      current = await api.get(claim.metadata.name ?? '');
    } catch (error) {
      if (isNotFound(error)) return { kind: 'ClaimGone' };
      throw error;
    }
    if (current.metadata.deletionTimestamp || current.metadata.uid !== claim.metadata.uid) return { kind: 'ClaimGone' };
  }
}

/** Gives back a Metal3Data we made but must not keep: our finalizer off, then delete (DT-15 order). */
export async function discardData(api: Pick<Api<Metal3Data>, 'get' | 'jsonPatch' | 'delete'>, data: Readonly<Metal3Data>): Promise<void> {
  await removeFinalizerGuarded(api, data as Metal3Data, DATA_CLAIM_FINALIZER);
  try {
    await api.delete(data.metadata.name ?? '');
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
