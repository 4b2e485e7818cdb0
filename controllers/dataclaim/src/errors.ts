// How a claim reconcile fails. Bad input is never an error: it is written to the claim's
// status.errorMessage and the reconcile ends (the next change to the claim or its template brings it
// back). What is thrown is a failed request (nearly always a write): the harness's StepError, retried
// with the controller's per-item backoff; a refused one (refusalOf) also goes to status.errorMessage.
import { runStep, StepError } from '@metal3-ts/shared/controller/step-error';

export type WriteStep =
  | 'finalizer'
  | 'Metal3Data read'
  | 'Metal3Data create'
  | 'claim status'
  | 'template status'
  | 'Metal3Data release'
  | 'finalizer removal';

/** A failed request of a claim reconcile (`key` is the claim's namespace/name). */
export class DataClaimWriteError extends StepError<WriteStep> {
  constructor(key: string, step: WriteStep, cause: unknown) {
    super(`Metal3DataClaim ${key}`, step, cause);
  }
}

/** Runs a write, labelling its failure with the step. */
export function writeStep<T>(key: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  return runStep(`Metal3DataClaim ${key}`, step, write);
}

/**
 * Every index tried was taken by another claim's Metal3Data between our read and our create. Only
 * possible when other writers keep winning; retried with backoff like any failed write.
 */
export class IndexAllocationExhaustedError extends Error {
  override name = 'IndexAllocationExhaustedError';
  readonly attempts: number;
  constructor(template: string, attempts: number) {
    super(`Metal3DataTemplate ${template}: ${attempts} indexes in a row were taken by other claims before our create; retrying later`);
    this.attempts = attempts;
  }
}
