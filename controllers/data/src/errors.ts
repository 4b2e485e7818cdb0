// The errors a reconcile of this package returns are failed requests to the apiserver: anything wrong
// with the objects themselves is reported in `status.errorMessage` and a Warning event instead (bad
// input never becomes a retry loop). They are the harness's StepError (each phase runs in `runStep`,
// phase.ts), retried with per-item backoff; `step` says which phase failed, `cause` why. deriveStatus
// also writes them to status.errorMessage (a refused one described by verb and resource).
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { PatchError } from '@metal3-ts/shared/patch/patch-helper';

/** E-48: a patch that failed only because the object is gone (deleted meanwhile) is no failure. */
export function isGoneDuringPatch(error: unknown): boolean {
  const inner = error instanceof StepError ? error.cause : error;
  return inner instanceof PatchError && inner.errors.length > 0 && inner.errors.every(isNotFound);
}
