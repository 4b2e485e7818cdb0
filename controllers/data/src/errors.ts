// The errors a reconcile of this package returns are failed requests to the apiserver: anything wrong
// with the objects themselves is reported in `status.errorMessage` and a Warning event instead (bad
// input never becomes a retry loop). They are the harness's StepError, retried with per-item backoff;
// `step` says which request failed, `cause` why. A refused one (refusalOf) also goes to
// status.errorMessage.
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { runStep, StepError } from '@metal3-ts/shared/controller/step-error';
import { PatchError } from '@metal3-ts/shared/patch/patch-helper';

export type WriteStep =
  | 'finalizer'
  | 'finalizer removal'
  | 'owner reference'
  | 'status'
  | 'secret read'
  | 'secret create'
  | 'ip claims'
  | 'ip claim release';

export type WriteError = StepError<WriteStep>;

/** Runs a request, labelling its failure with the object (`Metal3Data ns/name`) and the step. */
export function writeStep<T>(what: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  return runStep(what, step, write);
}

/** E-48: a patch that failed only because the object is gone (deleted meanwhile) is no failure. */
export function isGoneDuringPatch(error: unknown): boolean {
  const inner = error instanceof StepError ? error.cause : error;
  return inner instanceof PatchError && inner.errors.length > 0 && inner.errors.every(isNotFound);
}
