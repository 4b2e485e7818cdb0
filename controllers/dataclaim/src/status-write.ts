// The claim's one status write (DT-14, DC-2). When it binds the claim (status.renderedData set to a
// Metal3Data), it carries the claim's resourceVersion, so it is also the lock on "one Metal3Data per
// claim": if two replicas each made a Metal3Data for the same claim, only one can record it; the other,
// re-reading after the 409 (the harness's retryOnConflict), finds the claim bound elsewhere and gives
// its own back. (Indexes are locked by the Metal3Data names; this locks the claim.) Any other status
// change (errorMessage, renderedData cleared on release) is a plain merge patch. A claim that says
// what it should already costs no request.
import type { Api, MergePatch } from '@metal3-ts/generated';
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Metal3DataClaim, Metal3DataClaimStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import type { Binding } from './scope.ts';

/** The merge patch taking `current` to `desired` (null deletes), or undefined when they agree. */
export function statusPatch(
  current: Readonly<Metal3DataClaimStatus> | undefined,
  desired: Readonly<Metal3DataClaimStatus>,
): MergePatch<Metal3DataClaimStatus> | undefined {
  const patch: { renderedData?: { name: string; namespace: string } | null; errorMessage?: string | null } = {};
  const was = current?.renderedData;
  const want = desired.renderedData;
  if (was?.name !== want?.name || was?.namespace !== want?.namespace) {
    patch.renderedData = want ? { name: want.name ?? '', namespace: want.namespace ?? '' } : null;
  }
  if ((current?.errorMessage || undefined) !== (desired.errorMessage || undefined)) patch.errorMessage = desired.errorMessage || null;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/**
 * After a 409 on a binding write, what the fresh claim says: another writer bound it to a Metal3Data
 * other than ours and other than the one we set out to replace, or it is going. Undefined: try again.
 */
export function lostBinding(original: Readonly<Metal3DataClaim>, current: Readonly<Metal3DataClaim>, ours: string): Binding | undefined {
  if (current.metadata.deletionTimestamp || current.metadata.uid !== original.metadata.uid) return { kind: 'ClaimGone' };
  const other = current.status?.renderedData?.name;
  if (other && other !== ours && other !== original.status?.renderedData?.name) return { kind: 'BoundElsewhere', name: other };
  return undefined;
}

/** The outcome, and the status the claim had before the write (for "is this message new?"). */
export interface StatusWrite {
  readonly binding: Binding;
  /** The claim's status the write replaced; undefined when nothing was written. */
  readonly replaced?: Readonly<Metal3DataClaimStatus> | undefined;
}

/**
 * Writes `desiredFor(claim)` onto `claim`; after a conflict `desiredFor` is asked again about the
 * fresh claim. A claim that is gone (404) is `ClaimGone`.
 */
export async function writeStatus(
  api: Pick<Api<Metal3DataClaim>, 'mergePatchStatus' | 'get'>,
  claim: Readonly<Metal3DataClaim>,
  desiredFor: (claim: Readonly<Metal3DataClaim>) => Metal3DataClaimStatus,
): Promise<StatusWrite> {
  const name = claim.metadata.name ?? '';
  const write = async (current: Readonly<Metal3DataClaim>, attempt: number): Promise<StatusWrite> => {
    const desired = desiredFor(current);
    const patch = statusPatch(current.status, desired);
    const binds = patch?.renderedData ? patch.renderedData.name ?? '' : undefined;
    if (attempt > 1 && binds !== undefined) {
      const lost = lostBinding(claim, current, binds);
      if (lost) return { binding: lost };
    }
    if (!patch) return { binding: { kind: 'Bound', claim: current } };
    const body: MergePatch<Metal3DataClaim> = binds !== undefined
      ? { metadata: { resourceVersion: current.metadata.resourceVersion ?? '' }, status: patch }
      : { status: patch };
    const written = await api.mergePatchStatus(name, body);
    return { binding: { kind: 'Bound', claim: written }, replaced: current.status ?? {} };
  };
  const outcome = await retryOnConflict(claim, write, {
    what: `Metal3DataClaim ${claim.metadata.namespace ?? ''}/${name}: recording its Metal3Data`,
    reread: () => ignoreNotFound(api.get(name)),
  });
  return outcome ?? { binding: { kind: 'ClaimGone' } };
}
