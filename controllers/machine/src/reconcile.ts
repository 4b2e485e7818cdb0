// One reconcile of a Metal3Machine (research §1.2), in the Cluster API shape: the scope is read once
// from the informers (scope.ts) → the guard decides the flow (guards.ts) → the phases of the normal
// or the deletion flow, in order, each recording what it found on the scope, our finalizer before
// and after them (phases/finalizer.ts: only where no other write carries it) → one pure
// deriveStatus (status.ts) → one patch of the Metal3Machine (machine-patch.ts).
//
// A phase returns undefined to go on, or the reconcile's result to stop there (a wait). A phase that
// throws ends the list too (each phase builds on the ones before); its failure, labelled with its
// step (StepError), is recorded and shown by deriveStatus on that step's condition, the patch still
// runs, and then the failure goes to the harness, aggregated with the patch's own if that failed:
// invalid configuration as a TerminalError (failureReason/failureMessage, seed 002), anything else
// (a refusal, a conflict) retried with the harness's backoff. No retry policy lives here.
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { patchAfterPhases, type Phase as HarnessPhase, type PhasesRun, runPhases } from '@metal3-ts/shared/controller/phases';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { type ReconcileContext, type ReconcileFn, type Request, requestKey, type Result, TerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import { type MachineContext, machineContext } from './context.ts';
import type { MachineReconcilerDeps } from './deps.ts';
import { causeOf, isInvalidConfiguration } from './errors.ts';
import { guard } from './guards.ts';
import { patchMachine } from './machine-patch.ts';
import { METAL3_MACHINE_FINALIZER, OWNED_CONDITIONS } from './names.ts';
import type { MachineStep } from './observations.ts';
import { reconcileAssociation, reconcileStaleRecord, reconcileStrays } from './phases/association.ts';
import { reconcileDelete } from './phases/delete.ts';
import { reconcileFinalizer, reconcileLateFinalizer } from './phases/finalizer.ts';
import { reconcileGuard } from './phases/guard.ts';
import { reconcileHostUpdate, reconcileSettled } from './phases/keep-host.ts';
import { reconcileMetadata } from './phases/metadata.ts';
import { reconcileNode } from './phases/node.ts';
import { reconcilePause } from './phases/pause.ts';
import { reconcileSpec } from './phases/spec.ts';
import { type MachineScope, newScope, readScope } from './scope.ts';
import { deriveStatus } from './status.ts';

type Phase = HarnessPhase<MachineContext, MachineScope, MachineStep>;

/** Every flow but deletion; the guard phase stops all but the Reconcile decision. */
const NORMAL: readonly Phase[] = [
  { step: 'pause', run: reconcilePause }, // M-14…M-16
  { step: 'guard', run: reconcileGuard }, // M-9…M-13, seed 002
  { step: 'spec', run: reconcileSpec }, // issue 21, M-10
  { step: 'settled', run: reconcileSettled }, // M-19
  { step: 'associate', run: reconcileAssociation }, // M-20…M-27, M-40, M-41
  { step: 'forget', run: reconcileStaleRecord }, // a record of a host the machine cannot have
  { step: 'strays', run: reconcileStrays }, // one machine, one host
  { step: 'metadata', run: reconcileMetadata }, // M-28, M-35
  { step: 'host', run: reconcileHostUpdate }, // M-25, M-30, M-31, M-36
  { step: 'node', run: reconcileNode }, // P-*, M-32, M-33
];

/** Section 4 (X-1…X-16). */
const DELETION: readonly Phase[] = [{ step: 'release', run: reconcileDelete }];

const FINALIZER: readonly Phase[] = [{ step: 'finalizer', run: reconcileFinalizer }];
const LATE_FINALIZER: readonly Phase[] = [{ step: 'finalizer', run: reconcileLateFinalizer }];

export function metal3MachineReconciler(deps: MachineReconcilerDeps): ReconcileFn {
  const ctx = machineContext(deps);
  const now = deps.now ?? (() => new Date());

  return async (request: Request, reconcileContext: ReconcileContext): Promise<Result> => {
    const key = requestKey(request);
    const reads = readScope(deps.informers, request, deps.client.api(Metal3MachineResource, request.namespace), reconcileContext.log);
    if (!reads) {
      ctx.stopAwaitingNode(key);
      ctx.reportedDrops.delete(key);
      ctx.labelledSecrets.delete(key);
      return {};
    }
    // A workload cluster on its way out: its apiserver should not have to wait on our Node watch.
    if (reads.cluster?.metadata.deletionTimestamp) {
      deps.awaitedNodes?.stop({ namespace: request.namespace ?? '', name: reads.cluster.metadata.name ?? '' });
    }
    const decision = guard(reads);
    if (decision.kind === 'NotOurs') return {};
    const scope = newScope(reads, decision, now());

    const reconciling = decision.kind === 'Reconcile';
    const early: PhasesRun = reconciling ? await runPhases(ctx, scope, FINALIZER) : {};
    let run = early.failure === undefined ? await runPhases(ctx, scope, decision.kind === 'Delete' ? DELETION : NORMAL) : early;
    if (reconciling && early.failure === undefined) {
      const late = await runPhases(ctx, scope, LATE_FINALIZER);
      if (run.failure === undefined && late.failure !== undefined) run = { outcome: run.outcome, failure: late.failure };
    }
    const { outcome: result = {}, failure } = run;
    scope.observed.failure = failure;
    const base = scope.base;
    const desired = deriveStatus({ m3m: scope.m3m, base, observed: scope.observed, now: scope.now });
    const invalid = causeOf(failure);
    if (isInvalidConfiguration(invalid) && base.status?.failureMessage !== invalid.message) {
      deps.events?.warning(desired, 'InvalidConfiguration', invalid.message);
    }
    const patch = new PatchHelper(base, scope.api);
    await patchAfterPhases(scope.object, failure, () => patchMachine(patch, base, desired, { ownedConditions: OWNED_CONDITIONS }));
    if (isInvalidConfiguration(invalid)) throw new TerminalError(invalid.message, { cause: failure });
    if (failure !== undefined) throw failure;
    if (scope.released) {
      await removeFinalizerGuarded(scope.api, desired, METAL3_MACHINE_FINALIZER);
      ctx.stopAwaitingNode(key);
    }
    return result;
  };
}
