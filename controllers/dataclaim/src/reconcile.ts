// One reconcile of a Metal3DataClaim (research DT-9…DT-15, DC-2), in the common shape: the scope read
// once from the informers (scope.ts, with the guard's decision) → the decision's phases `(ctx, scope)`
// → one pure `deriveStatus(scope)` → one status write → the errors the phases recorded, thrown
// together for the worker loop to retry with backoff (a refused one also reached errorMessage).
//
// One twist on the shape: the status write that binds the claim is also its lock (status-write.ts),
// so the phases that rely on the binding (`settle`: give back what the claim does not use, record the
// ledger entry; on release, remove our finalizer) run after it, and only when nothing failed before.
// When the status already says what deriveStatus says about renderedData (the claim is bound, or a
// retry after a failed settle phase), they run before the write instead, so a refusal among them
// still reaches errorMessage in the same single write. Every write is idempotent, so a reconcile
// interrupted anywhere finishes the job the next time; a claim that is already done costs no request.
import { Metal3DataClaimResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { Guard } from './guards.ts';
import { type Phase, type PhaseContext, type ReconcilerDeps, runPhases, step } from './phase.ts';
import { allocate } from './phases/allocate.ts';
import { findData } from './phases/find-data.ts';
import { addFinalizer, removeFinalizer } from './phases/finalizer.ts';
import { giveBack } from './phases/give-back.ts';
import { dropLedgerEntry, recordInLedger } from './phases/ledger.ts';
import { releaseDatas } from './phases/release.ts';
import { type ClaimScope, readScope } from './scope.ts';
import { deriveStatus, problemOf, STATUS_STEP } from './status.ts';
import { statusPatch, writeStatus } from './status-write.ts';

export type { ReconcilerDeps } from './phase.ts';

interface Plan {
  readonly phases: readonly Phase[];
  /** Phases that rely on the claim's status being written (see above). */
  readonly settle: readonly Phase[];
}

const NOTHING: Plan = { phases: [], settle: [] };

const FINALIZER: Phase = { step: 'finalizer', run: addFinalizer };
const FIND_DATA: Phase = { step: 'Metal3Data read', run: findData };
const ALLOCATE: Phase = { step: 'Metal3Data create', run: allocate };
const GIVE_BACK: Phase = { step: 'Metal3Data release', run: giveBack };
const RECORD_IN_LEDGER: Phase = { step: 'template status', run: recordInLedger };
const RELEASE: Phase = { step: 'Metal3Data release', run: releaseDatas };
const DROP_LEDGER_ENTRY: Phase = { step: 'template status', run: dropLedgerEntry };
const REMOVE_FINALIZER: Phase = { step: 'finalizer removal', run: removeFinalizer };

/** The phases of each decision of the guard (guards.ts). */
export function planFor(decision: Guard): Plan {
  switch (decision.kind) {
    // DT-11 first: the finalizer, so the claim cannot disappear with a Metal3Data left behind.
    case 'Allocate':
      return { phases: [FINALIZER, FIND_DATA, ALLOCATE], settle: [GIVE_BACK, RECORD_IN_LEDGER] };
    case 'Release':
      return { phases: [RELEASE, DROP_LEDGER_ENTRY], settle: [REMOVE_FINALIZER] };
    default:
      return NOTHING;
  }
}

export function dataClaimReconciler(deps: ReconcilerDeps): ReconcileFn {
  return (request, context) => reconcileClaim(deps, request, context);
}

export async function reconcileClaim(deps: ReconcilerDeps, request: Request, { log }: ReconcileContext): Promise<Result> {
  const claim = deps.informers.claims.store.get(request);
  if (!claim) return {};
  const scope = readScope(deps.informers, claim);
  const ctx: PhaseContext = { deps, log };
  logDecision(scope, ctx);
  const plan = planFor(scope.decision);
  const ready = await runPhases(ctx, scope, plan.phases);
  const settledFirst = ready && plan.settle.length > 0 && !rebinds(scope);
  if (settledFirst) {
    scope.observed.binding = { kind: 'Bound', claim: scope.observed.claim };
    await runPhases(ctx, scope, plan.settle);
  }
  await writeClaimStatus(ctx, scope);
  // Only after a status write that worked: a release must not drop its finalizer while the claim still names its Metal3Data.
  if (ready && !settledFirst && scope.observed.errors.length === 0) await runPhases(ctx, scope, plan.settle);
  const { errors } = scope.observed;
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${scope.object}: ${errors.length} steps failed`);
  return {};
}

/** Whether the status write would change renderedData (bind, re-point or clear it). */
function rebinds(scope: ClaimScope): boolean {
  const patch = statusPatch(scope.observed.claim.status, deriveStatus(scope));
  return patch !== undefined && 'renderedData' in patch;
}

function logDecision({ decision }: ClaimScope, { log }: PhaseContext): void {
  if (decision.kind === 'Paused') log.debug('Metal3DataClaim, its template or its Cluster is paused');
  else if (decision.kind === 'WaitForCluster') log.info('waiting for the Cluster of the Metal3DataTemplate', { cluster: decision.clusterName });
  else if (decision.kind === 'Invalid') log.info('Metal3DataClaim cannot be served', { reason: decision.reason, message: decision.message });
}

/**
 * The one status write, from deriveStatus; a Warning event when it wrote a new problem message. Its
 * failure is recorded like a phase's (a refusal of it only reaches the worker loop's event).
 */
async function writeClaimStatus(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const { observed } = scope;
  const claims = ctx.deps.client.api(Metal3DataClaimResource, scope.claim.metadata.namespace ?? '');
  try {
    const written = await step(
      scope,
      STATUS_STEP,
      () => writeStatus(claims, observed.claim, (current) => deriveStatus({ ...scope, observed: { ...observed, claim: current } })),
    );
    observed.binding ??= written.binding;
    if (written.binding.kind === 'Bound') observed.claim = written.binding.claim;
    const problem = problemOf(scope);
    if (problem && written.replaced && (written.replaced.errorMessage || undefined) !== (observed.claim.status?.errorMessage || undefined)) {
      ctx.deps.events?.warning(observed.claim, problem.reason, problem.message);
    }
  } catch (error) {
    observed.errors.push(error);
  }
}
