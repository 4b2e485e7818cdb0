// The only errors a Metal3Cluster reconcile returns are failed writes: everything wrong with the
// object itself is reported in its conditions instead (bad input never becomes a retry loop). They are
// the harness's StepError (`step` says which write failed, `cause` why), retried with per-item
// backoff; a refused one (refusalOf) is also written to the conditions by the reconcile.
import { runStep, StepError } from '@metal3-ts/shared/controller/step-error';

export type WriteStep = 'spec defaults' | 'finalizer' | 'status' | 'finalizer removal';

export type Metal3ClusterWriteError = StepError<WriteStep>;

/** Runs a write, labelling its failure with the object and the step. */
export function writeStep<T>(key: string, step: WriteStep, write: () => Promise<T>): Promise<T> {
  return runStep(`Metal3Cluster ${key}`, step, write);
}
