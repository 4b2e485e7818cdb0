// What a phase of a claim reconcile is. A phase is an I/O step `(ctx, scope)`: it reads the scope,
// records what it found or did in `scope.observed`, and says in its doc comment what it writes on the
// server. It never writes the claim's status (status.ts derives that, status-write.ts writes it once).
// A failed request is thrown as the harness's StepError (`step`); `runPhases` records it in
// `scope.observed.errors` and ends the list, because each phase relies on the ones before it. The
// reconcile throws the recorded errors after the status write, so retry policy stays in the worker loop.
import type { Client } from '@metal3-ts/generated';
import { type Phase as HarnessPhase, runPhases as runHarnessPhases } from '@metal3-ts/shared/controller/phases';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Counter } from '@metal3-ts/shared/metrics/registry';
import type { TemplateLedgerWriter } from './ledger-writer.ts';
import type { IndexReservations } from './reservations.ts';
import type { ClaimScope, DataClaimInformers } from './scope.ts';

export interface ReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataClaimInformers;
  readonly ledger: TemplateLedgerWriter;
  readonly reservations: IndexReservations;
  readonly events?: EventRecorder | undefined;
  /** Counts creates lost to another claim's Metal3Data (AlreadyExists), by template. */
  readonly conflicts?: Counter | undefined;
}

export interface PhaseContext {
  readonly deps: ReconcilerDeps;
  readonly log: Logger;
}

/** A named phase (the harness's): `step` labels a failure the phase did not label itself. */
export type Phase = HarnessPhase<PhaseContext, ClaimScope, Step, void>;

/** The requests of a claim reconcile, as StepErrors name them. */
export type Step =
  | 'finalizer'
  | 'Metal3Data read'
  | 'Metal3Data create'
  | 'claim status'
  | 'template status'
  | 'Metal3Data release'
  | 'finalizer removal';

/** Runs one request of the reconcile of `scope`'s claim, labelling its failure (harness runStep). */
export function step<T>(scope: ClaimScope, name: Step, request: () => Promise<T>): Promise<T> {
  return runStep(scope.object, name, request);
}

/** Runs `phases` in order until one fails; its error is recorded on the scope. True when all ran. */
export async function runPhases(ctx: PhaseContext, scope: ClaimScope, phases: readonly Phase[]): Promise<boolean> {
  const { failure } = await runHarnessPhases(ctx, scope, phases);
  if (failure !== undefined) scope.observed.errors.push(failure);
  return failure === undefined;
}
