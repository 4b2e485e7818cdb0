// The errors a Metal3Machine reconcile tells apart. Bad input that no retry can fix is an
// InvalidConfigurationError: it becomes failureReason/failureMessage (the provider contract's
// terminal error, seed 002), conditions and a Warning event, and is not retried. Everything else that
// is thrown is retried with backoff after its condition is written; waits are not errors at all
// (phases return a requeue).

import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';

/** The spec cannot work as written (a cross-namespace Secret, an invalid host selector, …). */
export class InvalidConfigurationError extends Error {
  override name = 'InvalidConfigurationError';
}

export const isInvalidConfiguration = (error: unknown): error is InvalidConfigurationError => error instanceof InvalidConfigurationError;

/**
 * The message of any thrown value, for conditions and events. A request the apiserver refused is
 * described by verb and resource (`patch baremetalhosts.metal3.io refused: 403 Forbidden: …`), which
 * says what to grant or fix better than the HTTP method and path.
 */
export function messageOf(error: unknown): string {
  const refusal = refusalOf(error);
  if (refusal) return describeRefusal(refusal);
  return error instanceof Error ? error.message : String(error);
}
