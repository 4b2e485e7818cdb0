// One reconcile of a Metal3DataTemplate's life cycle (research DT-4…DT-8), in the common shape: the
// scope read once from the informers with the guard's decision (scope.ts) → the decision's named
// phases (phases.ts) → the result, decided from the observations alone (a wait keeps the safety-net
// requeue behind the watches) → the recorded errors, thrown together for the harness's worker loop.
//
// No status step and no final patch: the template's status belongs to the allocation side
// (controllers/dataclaim, its index ledger), and this controller owns only the owner reference and
// the finalizer, each written by its phase as a guarded JSON patch (a merge patch of metadata could
// drop another writer's reference or finalizer).
import type { Client } from '@metal3-ts/generated';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { REQUEUE_AFTER_MS } from '../names.ts';
import { runPhases, throwRecorded } from '../phase.ts';
import { endsQuietly } from '../quiet-exit.ts';
import type { TemplateGuard } from './guards.ts';
import { addFinalizer, addOwnerReference, awaitUsers, removeFinalizer, type TemplatePhase } from './phases.ts';
import { readTemplateScope, type TemplateInformers, type TemplateObservations } from './scope.ts';

export type { TemplateInformers } from './scope.ts';

export interface TemplateReconcilerDeps {
  readonly client: Client;
  readonly informers: TemplateInformers;
  /** Safety-net wait of a deletion behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
}

/** DT-6 before DT-8: the owner reference first, as upstream. */
const LIVE: readonly TemplatePhase[] = [
  { step: 'owner reference', run: addOwnerReference },
  { step: 'finalizer', run: addFinalizer },
];

const DELETION: readonly TemplatePhase[] = [
  { step: 'users', run: awaitUsers },
  { step: 'finalizer removal', run: removeFinalizer },
];

/** The phases of each decision that gets past the quiet exits. */
export function planFor(decision: TemplateGuard): readonly TemplatePhase[] {
  if (decision.kind === 'Reconcile') return LIVE;
  if (decision.kind === 'Delete') return DELETION;
  return [];
}

/** Pure: what the reconcile asks of the worker loop after its phases (errors aside). */
export function templateResult(observed: Readonly<TemplateObservations>, requeueAfterMs: number): Result {
  return observed.outcome?.kind === 'AwaitingUsers' ? { requeueAfterMs } : {};
}

export function metal3DataTemplateReconciler(deps: TemplateReconcilerDeps): ReconcileFn {
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;

  return async (request: Request, { log }: ReconcileContext): Promise<Result> => {
    const scope = readTemplateScope(deps.informers, deps.client, request);
    if (!scope || endsQuietly(scope.decision, log)) return {};
    await runPhases({ informers: deps.informers, log }, scope, planFor(scope.decision));
    const { outcome } = scope.observed;
    if (outcome) log.info(outcome.message);
    throwRecorded(scope);
    return templateResult(scope.observed, requeueAfterMs);
  };
}
