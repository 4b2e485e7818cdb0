// How a claim reconcile fails. Bad input is never an error: it is written to the claim's
// status.errorMessage and the reconcile ends (the next change to the claim or its template brings it
// back). What is thrown is a failed request (nearly always a write), retried with the controller's
// per-item backoff.

export type WriteStep =
  | 'finalizer'
  | 'Metal3Data read'
  | 'Metal3Data create'
  | 'claim status'
  | 'template status'
  | 'Metal3Data release'
  | 'finalizer removal';

export class DataClaimWriteError extends Error {
  override name = 'DataClaimWriteError';
  readonly step: WriteStep;
  constructor(key: string, step: WriteStep, cause: unknown) {
    super(`Metal3DataClaim ${key}: writing the ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.step = step;
  }
}

/** Runs a write, labelling its failure with the step. */
export async function writeStep<T>(key: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DataClaimWriteError) throw error;
    throw new DataClaimWriteError(key, step, error);
  }
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
