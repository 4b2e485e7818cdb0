// Whether an informer can still list and watch its kind, judged from the watcher's successes and
// failures. An informer that cannot (RBAC took a verb away, the CRD is gone, the apiserver keeps
// failing) serves a stale cache for ever while looking synced; this is what turns that into a failing
// readiness check and an error line instead of silence.
//
// Rules (pure, so they are table-tested):
// - a permanent failure is a problem at once: a refusal (controller/refusal.ts, the one list of
//   statuses no retry fixes: 401, 403, …) or 404, which for a list or watch means the kind is not
//   served (CRD missing), whereas for one object it only means the object is gone;
// - any other failure becomes a problem after FAILURES_BEFORE_PROBLEM consecutive ones of that verb;
// - list and watch are judged apart: a list that works does not hide a watch that is refused;
// - a success of a verb clears that verb's failures.
import { ApiError } from '@metal3-ts/generated';
import { isRefusedCode } from '../controller/refusal.ts';

export type ListWatchVerb = 'list' | 'watch';

/** Consecutive failures of one verb (not counting permanent ones, which count at once) that make a problem. */
export const FAILURES_BEFORE_PROBLEM = 3;

export interface VerbFailure {
  readonly verb: ListWatchVerb;
  /** HTTP status, or `0` when no response came (refused, reset, timed out). */
  readonly code: number;
  readonly message: string;
  /** Consecutive failures of this verb. */
  readonly count: number;
}

/** The `code` label of a failure: the HTTP status, or 0 when there was no response. */
export function failureCode(error: unknown): number {
  return error instanceof ApiError ? error.code : 0;
}

/** A list/watch failure no retry fixes without someone acting: a refusal (RBAC, credentials) or the kind not served. */
export function isPermanentListWatchFailure(code: number): boolean {
  return isRefusedCode(code) || code === KIND_NOT_SERVED;
}

/** 404 to a list or watch: the apiserver does not serve the kind (its CRD is missing). */
const KIND_NOT_SERVED = 404;

const summarise = (error: unknown): string => {
  if (error instanceof ApiError) return `${error.code} ${error.reason || 'Error'}: ${error.serverMessage}`;
  return error instanceof Error ? error.message : String(error);
};

export class ListWatchHealth {
  readonly #failures = new Map<ListWatchVerb, VerbFailure>();

  /** Records a failure; returns the verb's state after it. */
  failed(verb: ListWatchVerb, error: unknown): VerbFailure {
    const count = (this.#failures.get(verb)?.count ?? 0) + 1;
    const failure: VerbFailure = { verb, code: failureCode(error), message: summarise(error), count };
    this.#failures.set(verb, failure);
    return failure;
  }

  /** Records a success; returns the failure it cleared, if that failure was a problem. */
  succeeded(verb: ListWatchVerb): VerbFailure | undefined {
    const was = this.#failures.get(verb);
    this.#failures.delete(verb);
    return was && isProblem(was) ? was : undefined;
  }

  /** The failures that make the informer unhealthy now (empty when healthy). */
  problems(): VerbFailure[] {
    return [...this.#failures.values()].filter(isProblem);
  }
}

export function isProblem(failure: VerbFailure): boolean {
  return isPermanentListWatchFailure(failure.code) || failure.count >= FAILURES_BEFORE_PROBLEM;
}

/** One line naming verb, resource, status and attempts: what /readyz and the error log say. */
export function describeFailure(resource: string, failure: VerbFailure): string {
  return `cannot ${failure.verb} ${resource} (${failure.count} attempt${failure.count === 1 ? '' : 's'}): ${failure.message}`;
}
