// The one place a Metal3Data's status is decided (research D-8, D-9): deriveStatus turns what the
// phases of a reconcile observed (observations.ts) into the object the one patch writes. Pure: no
// I/O, table-tested (status.test.ts). The schema has only `ready` and `errorMessage` (no conditions
// in either dialect, as upstream), so the template field at fault is named in the message itself,
// and the same words go out as a Warning event (report.ts). It also records the Secret names the
// reconcile derived in the spec (D-10), the one spec field a reconcile learns rather than owns.
//
// As upstream: `ready` is never turned back, and every reconcile that gets past the guards clears
// `errorMessage` before trying again; a failed request is recorded in errorMessage (a refused one
// described by verb and resource). Changed (issue 21): `ready` turns true once every Secret the
// template asks for exists *and is controlled by this Metal3Data*.
// Changed (docs/compatibility.md): a render failure's message starts with the template field
// (`spec.networkData.links.ethernets[0].macAddress: bad MAC address: XX`), upstream's words follow.
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { withSecretReferences } from './decisions/secrets.ts';
import type { Finding, InvalidCause } from './findings.ts';
import type { Observations } from './observations.ts';

export type DataOutcome =
  /** D-9 step 7/11: every requested Secret exists and is ours; `created` names those this reconcile wrote. */
  | { readonly kind: 'Ready'; readonly created: readonly string[] }
  /** Upstream's transient errors: something else must happen first; the watches wake us. */
  | { readonly kind: 'Waiting'; readonly reason: string }
  /** Upstream's other errors: input that cannot work as it stands. */
  | { readonly kind: 'Invalid'; readonly cause: InvalidCause; readonly message: string; readonly field?: string }
  /** Issue 21 point 0: a Secret of a rendered name (`secret`) exists and is not this Metal3Data's. */
  | { readonly kind: 'SecretConflict'; readonly message: string; readonly secret: string }
  /** D-7: a deleting Metal3Data waits for its claim to go first (the claim's deletion wakes it); status untouched. */
  | { readonly kind: 'AwaitingClaimDeletion'; readonly claim: string }
  /** D-9 step 1 (no template), E-42 handled separately: the status is left as it is. */
  | { readonly kind: 'Untouched' };

/** A finding that did not find what it needed, as the outcome that ends the phases. */
export function outcomeOf(finding: Exclude<Finding<unknown>, { kind: 'Found' }>): DataOutcome {
  return finding.kind === 'Wait'
    ? { kind: 'Waiting', reason: finding.reason }
    : { kind: 'Invalid', cause: finding.cause, message: finding.message, ...(finding.field !== undefined ? { field: finding.field } : {}) };
}

/** The text users read in `status.errorMessage` and the Warning event. */
export function describeInvalid(outcome: { readonly message: string; readonly field?: string }): string {
  return outcome.field ? `${outcome.field}: ${outcome.message}` : outcome.message;
}

/** E-42 (fixed): why a Metal3Data without the cluster-name label is not rendered. */
export const MISSING_CLUSTER_LABEL_MESSAGE = 'Metal3Data has no cluster.x-k8s.io/cluster-name label: it cannot be associated with a Cluster';

/** Whether the reconcile waits for another object (the safety-net requeue behind the watches). */
export const waits = (outcome: DataOutcome | undefined): boolean =>
  outcome?.kind === 'Waiting' || outcome?.kind === 'SecretConflict' || outcome?.kind === 'AwaitingClaimDeletion';

/** The first failed request, worded for errorMessage: a refusal by verb and resource, else its message. */
export function failureMessage(errors: readonly unknown[]): string | undefined {
  if (errors.length === 0) return undefined;
  const [error] = errors;
  const refusal = refusalOf(error);
  return refusal ? describeRefusal(refusal) : error instanceof Error ? error.message : String(error);
}

/** The Metal3Data as the one patch should leave it, from what the phases observed. */
export function deriveStatus(observed: Readonly<Observations>): Metal3Data {
  const data = observed.targets ? withSecretReferences(observed.data, observed.targets) : (structuredClone(observed.data) as Metal3Data);
  const outcome = observed.outcome;
  switch (outcome?.kind) {
    case 'Ready':
      (data.status ??= {}).ready = true;
      delete data.status.errorMessage;
      break;
    case 'Waiting':
      if (data.status) delete data.status.errorMessage;
      break;
    case 'Invalid':
      (data.status ??= {}).errorMessage = describeInvalid(outcome);
      break;
    case 'SecretConflict':
      (data.status ??= {}).errorMessage = outcome.message;
      break;
    default:
      break;
  }
  const failure = failureMessage(observed.errors);
  if (failure !== undefined) (data.status ??= {}).errorMessage = failure;
  return data;
}
