// Named phases: the skeleton every controller's reconcile shares. A phase `(ctx, scope)` records what
// it found on the scope and returns undefined to go on, or an outcome that stops the list (the
// reconcile's result, a wait, or the controller's own outcome type). A phase that throws ends the list too (each builds on the ones before); its failure comes
// back labelled with the object and the phase's step (StepError) instead of being thrown, so the
// controller still derives and patches its status before handing the failure to the worker loop
// (`patchAfterPhases`). Retry policy is not here: the worker loop retries what reaches it.
import type { Result } from '../reconcile/reconcile.ts';
import { runStep } from './step-error.ts';

/** What a phase returns: undefined to go on with the next phase, or the result of the reconcile. */
export type PhaseResult = Result | undefined;

export interface Phase<Ctx, Scope, Step extends string = string, Outcome = Result> {
  readonly step: Step;
  readonly run: (ctx: Ctx, scope: Scope) => Outcome | undefined | Promise<Outcome | undefined>;
}

export interface PhasesRun<Outcome = Result> {
  /** What the phase that stopped the list returned; undefined when every phase ran or one threw. */
  readonly outcome?: Outcome | undefined;
  /** The failure of the phase that threw, labelled with its step; the list stopped there. */
  readonly failure?: unknown;
}

/** Runs `phases` in order until one returns an outcome or throws. `scope.object` names the object in failures. */
export async function runPhases<Ctx, Scope extends { readonly object: string }, Step extends string, Outcome>(
  ctx: Ctx,
  scope: Scope,
  phases: readonly Phase<Ctx, Scope, Step, Outcome>[],
): Promise<PhasesRun<Outcome>> {
  for (const phase of phases) {
    try {
      const outcome = await runStep(scope.object, phase.step, async () => await phase.run(ctx, scope));
      if (outcome) return { outcome };
    } catch (error) {
      return { failure: error };
    }
  }
  return {};
}

/**
 * The one status patch after the phases. Throws only when the patch fails, aggregated with the phases'
 * failure if there was one (both reach the worker loop and the error metric); the caller then throws
 * the phases' failure in its own terms (as it is, or terminal).
 */
export async function patchAfterPhases(object: string, failure: unknown, patch: () => Promise<unknown>): Promise<void> {
  try {
    await patch();
  } catch (patchError) {
    throw failure === undefined ? patchError : new AggregateError([patchError, failure], `${object}: the status patch failed after a failed step`);
  }
}
