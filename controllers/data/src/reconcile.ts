// One reconcile of a Metal3Data (research §1.6), in the common shape: the scope read once from the
// informers with the guard's decision (scope.ts) → the decision's named phases `(ctx, scope)`, each
// recording what it found on the scope (phase.ts, observations.ts) → one pure deriveStatus
// (status.ts) → events and logs (report.ts) → one patch → the recorded errors, thrown together for
// the harness's worker loop to retry with backoff (a refused request also reached errorMessage).
// No retry policy lives here: a wait for another object is a result with the safety-net requeue
// behind the watches, a failed request an error.
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { isGoneDuringPatch } from './errors.ts';
import type { DataGuard } from './guards.ts';
import { REQUEUE_AFTER_MS } from './names.ts';
import { type Phase, type PhaseContext, runPhases, step, throwRecorded } from './phase.ts';
import { allocate } from './phases/allocate.ts';
import { associate, missingClusterLabel } from './phases/associate.ts';
import { addFinalizer, removeFinalizer } from './phases/finalizer.ts';
import { awaitClaimDeletion, releaseIpClaims } from './phases/release.ts';
import { inspectSecrets } from './phases/rendered-secrets.ts';
import { writeSecrets } from './phases/write-secrets.ts';
import { endsQuietly } from './quiet-exit.ts';
import { report } from './report.ts';
import { type DataInformers, type DataScope, readScope } from './scope.ts';
import type { SecretConflictWatch } from './secret-conflict-watch.ts';
import { deriveStatus, waits } from './status.ts';

export interface DataReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: PhaseContext['client'];
  readonly informers: DataInformers;
  readonly events?: EventRecorder | undefined;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation?: boolean;
  /** Safety-net wait behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
  /** Watches the Secret blocking a Metal3Data (a SecretConflict) until it is no longer in the way. */
  readonly conflicts?: SecretConflictWatch | undefined;
}

/** D-8, D-9: finalizer first, so nothing is claimed or rendered for an object that could vanish. */
const NORMAL: readonly Phase[] = [
  { step: 'finalizer', run: addFinalizer },
  { step: 'associate', run: associate }, // D-9 steps 1–6
  { step: 'secret read', run: inspectSecrets }, // D-9 step 7
  { step: 'ip claims', run: allocate }, // D-9 steps 8–9, D-14
  { step: 'secret create', run: writeSecrets }, // D-9 steps 10–11
];

/** D-7, D-20. */
const DELETION: readonly Phase[] = [
  { step: 'claim deletion', run: awaitClaimDeletion },
  { step: 'ip claim release', run: releaseIpClaims },
  { step: 'finalizer removal', run: removeFinalizer },
];

/** E-42: the status alone; before the finalizer, as nothing will be claimed. */
const UNLABELLED: readonly Phase[] = [{ step: 'associate', run: missingClusterLabel }];

/** The phases of each decision of the guard that gets past the quiet exits (quiet-exit.ts). */
export function planFor(decision: DataGuard): readonly Phase[] {
  switch (decision.kind) {
    case 'Reconcile':
      return NORMAL;
    case 'Delete':
      return DELETION;
    case 'MissingClusterLabel':
      return UNLABELLED;
    default:
      return [];
  }
}

export function metal3DataReconciler(deps: DataReconcilerDeps): ReconcileFn {
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;

  return async (request: Request, { log }: ReconcileContext): Promise<Result> => {
    // The Secret blocking this Metal3Data after this pass; every other exit ends the name watch it held.
    let blocking: string | undefined;
    try {
      const scope = readScope(deps.informers, deps.client, request);
      if (!scope || endsQuietly(scope.decision, log)) return {};
      const ctx: PhaseContext = { client: deps.client, informers: deps.informers, preallocation: deps.preallocation ?? false, log };
      await runPhases(ctx, scope, planFor(scope.decision));
      const { outcome } = scope.observed;
      // A Secret in the way carries no label of ours: watched by name while it blocks us.
      if (outcome?.kind === 'SecretConflict') blocking = outcome.secret;
      const desired = deriveStatus(scope.observed);
      report(deps.events, log, scope.observed);
      await patch(scope, desired);
      throwRecorded(scope);
      return waits(outcome) ? { requeueAfterMs } : {};
    } finally {
      deps.conflicts?.blockedBy(request, blocking ? [blocking] : []);
    }
  };
}

/** The one patch (nothing changed: no request); its failure is recorded like a phase's, unless the object is gone (E-48). */
async function patch(scope: DataScope, desired: Metal3Data): Promise<void> {
  try {
    await step(scope, 'status', () => new PatchHelper(structuredClone(scope.observed.data) as Metal3Data, scope.api).patch(desired));
  } catch (error) {
    if (!isGoneDuringPatch(error)) scope.observed.errors.push(error);
  }
}
