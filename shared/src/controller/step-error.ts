// One typed error for "a request of this reconcile failed": which object, which step, and the cause.
// Controllers wrap each write (or read they cannot do without) in `runStep`; their status derivation
// asks `refusalOf(error)` whether the apiserver refused it for good (Forbidden, Invalid, …) and then
// writes the reason into the object's conditions or error message, while the worker loop adds a
// Warning event (controller.ts). Retry policy stays in the worker loop: a StepError is retried with
// backoff like any error.

export class StepError<S extends string = string> extends Error {
  override name = 'StepError';
  /** `Kind namespace/name` of the object being reconciled. */
  readonly object: string;
  readonly step: S;
  constructor(object: string, step: S, cause: unknown) {
    super(`${object}: ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.object = object;
    this.step = step;
  }
}

/** Runs a request, labelling its failure with the object and the step; a StepError passes through unchanged. */
export async function runStep<S extends string, T>(object: string, step: S, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof StepError) throw error;
    throw new StepError(object, step, error);
  }
}
