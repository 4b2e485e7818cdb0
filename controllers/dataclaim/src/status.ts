// The claim's status as a function of the scope (research DC-2, DT-11, DT-14, DT-15): pure, no I/O,
// table-tested for every field it sets. A Metal3DataClaim has no conditions; its status is
// `renderedData` (the Metal3Data serving it) and `errorMessage` (upstream's only channel for
// problems). A field the reconcile has no news about keeps its value.
//
// errorMessage, strongest first: a request the apiserver refused (`<verb> <resource> refused: …`,
// unless the refused write is the claim status itself, which cannot record itself) → the problem a
// phase recorded or the guard's verdict on bad input → cleared when the claim binds or waits for its
// Cluster → else unchanged.
import type { Metal3DataClaim, Metal3DataClaimStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { dataOfClaim } from './index-space.ts';
import { DATA_CLAIM_FINALIZER, REASONS } from './names.ts';
import type { ClaimScope, Problem } from './scope.ts';

/** The step name of the claim's own status write (its refusal is only told by the Warning event). */
export const STATUS_STEP = 'claim status';

/** What the user is told, from the guard's verdict and the phases' findings. */
export function problemOf(scope: ClaimScope): Problem | undefined {
  const { decision } = scope;
  if (decision.kind === 'Invalid') return keepsItsData(scope) ? undefined : { reason: decision.reason, message: decision.message };
  return scope.observed.problem;
}

/**
 * A claim that already has its Metal3Data keeps it, whatever happened to the template since; not
 * when the bad input is a reference into another namespace (issue 21: such a record is never followed).
 */
export function keepsItsData(scope: ClaimScope): boolean {
  const { decision } = scope;
  if (decision.kind !== 'Invalid' || decision.reason === REASONS.foreignRenderedData || decision.reason === REASONS.foreignReference) return false;
  return dataOfClaim(scope.claim, scope.datas).keep !== undefined;
}

/** The refusal among the phases' errors, worded for errorMessage. */
function refusalMessage(errors: readonly unknown[]): string | undefined {
  for (const error of errors) {
    if (error instanceof StepError && error.step === STATUS_STEP) continue;
    const refusal = refusalOf(error);
    if (refusal) return describeRefusal(refusal);
  }
  return undefined;
}

/** Whether the claim is held by a finalizer other than ours (the Metal3Machine's, DC-4). */
function heldByOthers(claim: Readonly<Metal3DataClaim>): boolean {
  return (claim.metadata.finalizers ?? []).some((f) => f !== DATA_CLAIM_FINALIZER);
}

/** The claim's status after this reconcile, from the claim the phases last saw. */
export function deriveStatus(scope: ClaimScope): Metal3DataClaimStatus {
  const { decision, observed } = scope;
  const current = observed.claim.status ?? {};
  if (decision.kind === 'Done' || decision.kind === 'Paused') return current;
  let { renderedData, errorMessage } = current;
  if (decision.kind === 'WaitForCluster') errorMessage = undefined;
  // DT-14/DC-2: the claim names its Metal3Data, and a bound claim carries no error.
  if (decision.kind === 'Allocate' && observed.data) {
    renderedData = { name: observed.data.metadata.name ?? '', namespace: observed.data.metadata.namespace ?? '' };
    errorMessage = undefined;
  }
  // DT-15: a claim outliving its release (the Metal3Machine's finalizer) stops naming a Metal3Data that is going.
  if (decision.kind === 'Release' && observed.released && heldByOthers(observed.claim)) renderedData = undefined;
  const told = refusalMessage(observed.errors) ?? problemOf(scope)?.message;
  if (told !== undefined) errorMessage = told;
  return {
    ...(renderedData ? { renderedData } : {}),
    ...(errorMessage ? { errorMessage } : {}),
  };
}
