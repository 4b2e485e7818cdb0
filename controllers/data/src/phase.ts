// What a phase of a reconcile of this package is (Metal3Data here, Metal3DataTemplate in
// data-template/ with its own scope and outcome): an I/O step `(ctx, scope)` that reads the scope, records
// what it found in `scope.observed` and says in its doc comment what it writes on the server. It
// returns undefined to go on, or the outcome that ends the list (a wait, bad input, ready). A failed
// request is thrown (the harness's StepError, labelled with the phase's step unless a finer step
// labelled it already); `runPhases` records it in `observed.errors` and ends the list, because each
// phase builds on the ones before. The reconcile throws the recorded errors after its one patch, so
// retry policy stays in the harness's worker loop.
import type { Client } from '@metal3-ts/generated';
import { type Phase as HarnessPhase, runPhases as runHarnessPhases } from '@metal3-ts/shared/controller/phases';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { DataStep } from './observations.ts';
import type { DataInformers, DataScope } from './scope.ts';
import type { DataOutcome } from './status.ts';

export interface PhaseContext {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataInformers;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation: boolean;
  readonly log: Logger;
}

export type PhaseResult = DataOutcome | undefined;

/** A named phase (the harness's): `step` labels its failure (StepError.step), `run` does the work. */
export type Phase<C = PhaseContext, S = DataScope, O = DataOutcome, N extends string = DataStep> = HarnessPhase<C, S, N, O>;

/** What `runPhases` needs of a scope: the object's name for StepErrors, and where to record. */
export interface PhasedScope<O> {
  readonly object: string;
  readonly observed: { outcome?: O | undefined; readonly errors: unknown[] };
}

/** Runs one request of the reconcile of `scope`'s Metal3Data, labelling its failure with `step`. */
export function step<T>(scope: DataScope, name: DataStep, request: () => Promise<T>): Promise<T> {
  return runStep(scope.object, name, request);
}

/** The harness's runPhases, recording the outcome that stopped the list, or the failure in `errors`. */
export async function runPhases<C, S extends PhasedScope<O>, O, N extends string>(ctx: C, scope: S, phases: readonly Phase<C, S, O, N>[]): Promise<void> {
  const { outcome, failure } = await runHarnessPhases(ctx, scope, phases);
  if (outcome) scope.observed.outcome = outcome;
  if (failure !== undefined) scope.observed.errors.push(failure);
}

/** What an earlier phase must have recorded; its absence is a wrong phase order (a bug, not input). */
export function recorded<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`phase order: ${what} not recorded by an earlier phase`);
  return value;
}

/** Ends a reconcile with what its phases and its patch recorded: nothing, the one error, or all of them together. */
export function throwRecorded(scope: PhasedScope<unknown>): void {
  const { errors } = scope.observed;
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${scope.object}: ${errors.length} steps failed`);
}
