// What a reconcile came to, as a value: the worker loop maps it to queue operations and metrics in one
// switch (controller.ts), so retry policy lives in one place and never in a reconciler.
import { isTerminalError, type Result } from '../reconcile/reconcile.ts';

export { isTerminalError };

export type ReconcileOutcome =
  | { readonly kind: 'success'; readonly result: Result }
  | { readonly kind: 'terminal'; readonly error: Error }
  | { readonly kind: 'error'; readonly error: Error }
  | { readonly kind: 'panic'; readonly error: ReconcilePanicError };

/**
 * A reconcile threw something that is not an Error (a string, undefined, a plain object): the TS
 * counterpart of a Go panic. Counted in `controller_runtime_reconcile_panics_total` and retried with
 * backoff; the worker survives.
 */
export class ReconcilePanicError extends Error {
  override name = 'ReconcilePanicError';
  readonly value: unknown;
  constructor(value: unknown) {
    super(`panic: ${describe(value)} [recovered]`);
    this.value = value;
  }
}

/** Why a reconcile's signal aborted when it ran past the controller's `reconcileTimeoutMs`. */
export class ReconcileTimeoutError extends Error {
  override name = 'ReconcileTimeoutError';
  constructor(timeoutMs: number) {
    super(`reconcile exceeded its timeout of ${timeoutMs} ms`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Classifies what a reconcile threw. */
export function outcomeOfThrow(thrown: unknown): ReconcileOutcome {
  if (!(thrown instanceof Error)) return { kind: 'panic', error: new ReconcilePanicError(thrown) };
  return isTerminalError(thrown) ? { kind: 'terminal', error: thrown } : { kind: 'error', error: thrown };
}

/** A resolved reconcile; a missing or malformed result (plain-JS callers) counts as "done". */
export function outcomeOfResult(result: Result | undefined): ReconcileOutcome {
  const after = result?.requeueAfterMs;
  return { kind: 'success', result: typeof after === 'number' && after > 0 && Number.isFinite(after) ? { requeueAfterMs: after } : {} };
}
