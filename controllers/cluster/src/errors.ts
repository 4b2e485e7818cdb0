// The only errors a Metal3Cluster reconcile returns are failed writes: everything wrong with the
// object itself is reported in its conditions instead (bad input never becomes a retry loop). The
// controller retries these with per-item backoff; `step` says which write failed, `cause` why.

export type WriteStep = 'spec defaults' | 'finalizer' | 'status' | 'finalizer removal';

export class Metal3ClusterWriteError extends Error {
  override name = 'Metal3ClusterWriteError';
  readonly step: WriteStep;
  constructor(key: string, step: WriteStep, cause: unknown) {
    super(`Metal3Cluster ${key}: writing the ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.step = step;
  }
}

/** Runs a write, labelling its failure with the step. */
export async function writeStep<T>(key: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw new Metal3ClusterWriteError(key, step, error);
  }
}
