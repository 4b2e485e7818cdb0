// From one outcome of a Metal3Data reconcile to everything its status says (research D-8, D-9): the
// schema has only `ready` and `errorMessage` (no conditions, as upstream), so the template field at
// fault is named in the message itself, and the same words go out as a Warning event.
//
// As upstream: `ready` is never turned back, and every reconcile that gets past the guards clears
// `errorMessage` before trying again. Changed (issue 21): `ready` turns true once every Secret the
// template asks for exists *and is controlled by this Metal3Data*.
// Changed (docs/compatibility.md): a render failure's message starts with the template field
// (`spec.networkData.links.ethernets[0].macAddress: bad MAC address: XX`), upstream's words follow.
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { InvalidCause } from './steps.ts';

export type DataOutcome =
  /** D-9 step 7/11: every requested Secret exists and is ours; `created` names those this reconcile wrote. */
  | { readonly kind: 'Ready'; readonly created: readonly string[] }
  /** Upstream's transient errors: something else must happen first; the watches wake us. */
  | { readonly kind: 'Waiting'; readonly reason: string }
  /** Upstream's other errors: input that cannot work as it stands. */
  | { readonly kind: 'Invalid'; readonly cause: InvalidCause; readonly message: string; readonly field?: string }
  /** Issue 21 point 0: a Secret of a rendered name (`secret`) exists and is not this Metal3Data's. */
  | { readonly kind: 'SecretConflict'; readonly message: string; readonly secret: string }
  /** A write to the apiserver failed; retried with backoff. */
  | { readonly kind: 'Failed'; readonly message: string }
  /** D-9 step 1 (no template), E-42 handled separately: the status is left as it is. */
  | { readonly kind: 'Untouched' };

/** The text users read in `status.errorMessage` and the Warning event. */
export function describeInvalid(outcome: { readonly message: string; readonly field?: string }): string {
  return outcome.field ? `${outcome.field}: ${outcome.message}` : outcome.message;
}

/** E-42 (fixed): why a Metal3Data without the cluster-name label is not rendered. */
export const MISSING_CLUSTER_LABEL_MESSAGE = 'Metal3Data has no cluster.x-k8s.io/cluster-name label: it cannot be associated with a Cluster';

/** The status of `data` after a reconcile that found `outcome`, in memory (pure: the reconcile's one status decision). */
export function deriveStatus(data: Metal3Data, outcome: DataOutcome): void {
  switch (outcome.kind) {
    case 'Untouched':
      return;
    case 'Ready':
      (data.status ??= {}).ready = true;
      delete data.status.errorMessage;
      return;
    case 'Waiting':
      if (data.status) delete data.status.errorMessage;
      return;
    case 'Invalid':
      (data.status ??= {}).errorMessage = describeInvalid(outcome);
      return;
    case 'SecretConflict':
      (data.status ??= {}).errorMessage = outcome.message;
      return;
    case 'Failed':
      (data.status ??= {}).errorMessage = outcome.message;
      return;
  }
}
