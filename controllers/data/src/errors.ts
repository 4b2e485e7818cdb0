// The errors a reconcile of this package returns are failed requests to the apiserver: anything wrong
// with the objects themselves is reported in `status.errorMessage` and a Warning event instead (bad
// input never becomes a retry loop). The controller retries these with per-item backoff; `step` says
// which request failed, `cause` why.
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { PatchError } from '@metal3-ts/shared/patch/patch-helper';

export type WriteStep =
  | 'finalizer'
  | 'finalizer removal'
  | 'owner reference'
  | 'status'
  | 'secret read'
  | 'secret create'
  | 'secret delete'
  | 'former owner read'
  | 'ip claims'
  | 'ip claim release';

export class WriteError extends Error {
  override name = 'WriteError';
  readonly step: WriteStep;
  constructor(what: string, step: WriteStep, cause: unknown) {
    super(`${what}: ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.step = step;
  }
}

/** Runs a request, labelling its failure with the object (`Metal3Data ns/name`) and the step. */
export async function writeStep<T>(what: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw new WriteError(what, step, error);
  }
}

/** E-48: a patch that failed only because the object is gone (deleted meanwhile) is no failure. */
export function isGoneDuringPatch(error: unknown): boolean {
  const inner = error instanceof WriteError ? error.cause : error;
  return inner instanceof PatchError && inner.errors.length > 0 && inner.errors.every(isNotFound);
}
