// One reconcile of a Metal3Cluster (research §1.1), in the common shape: the scope read once from
// the informers, with the guard's decision (scope.ts) → the decision's phases `(ctx, scope)`, in
// order, each recording what it found on the scope → one pure deriveStatus (status.ts) → one patch.
//
// A phase returns undefined to go on, or the reconcile's result to stop there (a wait). A phase that
// throws ends the list (each builds on the ones before: no Ready without our finalizer); its failure,
// labelled with its step (StepError), is recorded, deriveStatus shows a refusal on
// BaremetalInfrastructureReady, the patch still runs, and then the failure goes to the harness,
// aggregated with the patch's own if that failed, which retries it with backoff, counts it in
// controller_runtime_reconcile_errors_total and leaves a Warning event. No retry policy lives here.
import { Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { patchAfterPhases, type Phase as HarnessPhase, runPhases } from '@metal3-ts/shared/controller/phases';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { type ClusterContext, clusterContext, type ReconcilerDeps } from './context.ts';
import type { Guard } from './guards.ts';
import { OWNED_CONDITIONS } from './names.ts';
import type { ClusterStep } from './observations.ts';
import { reconcileDeletion } from './phases/deletion.ts';
import { reconcileFinalizer } from './phases/finalizer.ts';
import { reconcileOutcome } from './phases/outcome.ts';
import { reconcileSpecDefaults } from './phases/spec-defaults.ts';
import { type ClusterScope, readScope } from './scope.ts';
import { deriveStatus } from './status.ts';

export type { ReconcilerDeps } from './context.ts';

type Phase = HarnessPhase<ClusterContext, ClusterScope, ClusterStep>;

const specDefaults: Phase = { step: 'spec defaults', run: reconcileSpecDefaults }; // W-2, C-5
const finalizer: Phase = { step: 'finalizer', run: reconcileFinalizer }; // C-12
const outcome: Phase = { step: 'outcome', run: reconcileOutcome }; // C-8, C-9, C-13, C-14
const deletion: Phase = { step: 'finalizer removal', run: reconcileDeletion }; // C-11

/** The phases of each decision of the guard (guards.ts); the others touch nothing. */
export function planFor(decision: Guard): readonly Phase[] {
  switch (decision.kind) {
    case 'Paused': // C-10: only the Paused condition and the summaries.
      return [outcome];
    case 'WaitForOwnerRef':
    case 'OwnerClusterMissing':
      return [specDefaults, outcome];
    case 'Reconcile':
      return [specDefaults, finalizer, outcome];
    case 'Delete':
      return [deletion];
    case 'ExternallyManaged':
    case 'NotOurs':
      return [];
  }
}

export function metal3ClusterReconciler(deps: ReconcilerDeps): ReconcileFn {
  const ctx = clusterContext(deps);
  const now = deps.now ?? (() => new Date());

  return async (request: Request, { log }: ReconcileContext): Promise<Result> => {
    const scope = readScope(deps.informers, request, deps.client.api(Metal3ClusterResource, request.namespace), log, now());
    if (!scope) return {};
    if (scope.decision.kind === 'ExternallyManaged') log.debug('Metal3Cluster is externally managed, skipping');
    if (scope.decision.kind === 'ExternallyManaged' || scope.decision.kind === 'NotOurs') return {};

    const { outcome: result = {}, failure } = await runPhases(ctx, scope, planFor(scope.decision));
    scope.observed.failure = failure;
    if (scope.observed.released) return result;
    const patch = new PatchHelper(scope.m3c, scope.api);
    const desired = deriveStatus(scope);
    await patchAfterPhases(scope.object, failure, () => runStep(scope.object, 'status', () => patch.patch(desired, { ownedConditions: OWNED_CONDITIONS })));
    if (failure !== undefined) throw failure;
    return result;
  };
}
