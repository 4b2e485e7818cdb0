// One Metal3MachineTemplate reconcile (T-4…T-7), in the common shape without a status step: the
// scope read once from the cache, with its plan (scope.ts, plan.ts: pure) → the phases, in order,
// recording what their writes came to → the reconcile's result or error (outcome.ts: pure). The
// template itself is never written: no finalizer (0.1), no status (the CRD has none), so problems are
// Events on it and in the log; bad input ends the reconcile with a terminal error (not retried), and
// any other failure goes to the harness's backoff. No retry policy lives here.
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { PhaseFn, TemplateReconcilerDeps } from './context.ts';
import { failureOf } from './outcome.ts';
import { warnForeignReferences } from './phases/foreign-references.ts';
import { reconcileCleaningMode } from './phases/propagate-cleaning-mode.ts';
import { readScope } from './scope.ts';

export type { TemplateReconcilerDeps } from './context.ts';

/** Issue 21, then T-6. */
const PHASES: readonly PhaseFn[] = [warnForeignReferences, reconcileCleaningMode];

export function templateReconciler(deps: TemplateReconcilerDeps): ReconcileFn {
  return (request, context) => reconcileTemplate(deps, request, context);
}

export async function reconcileTemplate(deps: TemplateReconcilerDeps, request: Request, { log }: ReconcileContext): Promise<Result> {
  const scope = readScope(deps, request, log);
  if (!scope) return {}; // T-4
  if (scope.plan.paused) {
    log.debug('Metal3MachineTemplate is paused, not propagating'); // T-5
    return {};
  }
  const ctx = { deps };
  for (const phase of PHASES) await phase(ctx, scope);
  const failure = failureOf(scope);
  if (failure) throw failure;
  return {};
}
