// The errors a Metal3Machine reconcile tells apart. Every failure of a step reaches the harness
// wrapped in a StepError naming the step (observations.ts MachineStep), which is how deriveStatus
// knows the condition to show it on; the cause inside is one of:
// - InvalidConfigurationError: the spec cannot work as written; no retry fixes it. It becomes
//   failureReason/failureMessage (the provider contract's terminal error, seed 002), conditions and a
//   Warning event, and reaches the harness as a TerminalError (not retried);
// - HostTakenError: the recorded host is held by another consumer;
// - NodeProviderIDError: the workload cluster refused the Node patch (names the Node);
// - anything else (a refusal, a conflict, a lost connection): retried by the harness with backoff.
// Waits are not errors at all: phases return them as results. nodeFailureKind tells, for the Node
// step, a workload cluster still coming up (a wait) from one that needs a person.
import { ApiError, RequestTimeoutError } from '@metal3-ts/generated';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { ClusterNotReachableError, InvalidKubeconfigSecretError, KubeconfigSecretNotFoundError } from '@metal3-ts/shared/workload/errors';

/** The spec cannot work as written (a cross-namespace Secret, an invalid host selector, …). */
export class InvalidConfigurationError extends Error {
  override name = 'InvalidConfigurationError';
}

export const isInvalidConfiguration = (error: unknown): error is InvalidConfigurationError => error instanceof InvalidConfigurationError;

/** The host is held by another consumer: we never overwrite a claim (a hand edit, or a restore). */
export class HostTakenError extends Error {
  override name = 'HostTakenError';
}

/** P-11: writing the provider ID to a workload Node failed; the message names the Node and the cluster. */
export class NodeProviderIDError extends Error {
  override name = 'NodeProviderIDError';
  readonly node: string;
  constructor(node: string, cluster: string, cause: unknown) {
    super(`Node ${node} of workload cluster ${cluster}: setting spec.providerID failed: ${messageOf(cause)}`, { cause });
    this.node = node;
  }
}

/** What a step threw, without the StepError label around it. */
export const causeOf = (error: unknown): unknown => (error instanceof StepError ? error.cause : error);

/**
 * The message of any thrown value, for conditions and events. A request the apiserver refused is
 * described by verb and resource (`patch baremetalhosts.metal3.io refused: 403 Forbidden: …`), which
 * says what to grant or fix better than the HTTP method and path; a NodeProviderIDError keeps its
 * own words (it names the Node around that description).
 */
export function messageOf(error: unknown): string {
  const cause = causeOf(error);
  if (cause instanceof NodeProviderIDError) return cause.message;
  const refusal = refusalOf(cause);
  if (refusal) return describeRefusal(refusal);
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * What a failure of the Node step is (pure):
 * - `wait`: the workload cluster on its way up (or down, or restarting): no kubeconfig Secret yet,
 *   or an apiserver that does not answer (no response, a request deadline, a 5xx: what the
 *   ClusterCache's probe calls not reachable). Not a failure: the harness's error backoff grows to
 *   minutes, while the awaited-Node poll stays within the safety-net interval;
 * - `unusable`: needs a person (a refused request, such as a Forbidden Node patch, or a kubeconfig
 *   that can never work): an error, a Warning event and a Warning condition;
 * - `error`: anything else: an error (the condition says the workload cluster is not usable yet).
 */
export function nodeFailureKind(error: unknown): 'wait' | 'unusable' | 'error' {
  if (refusalOf(error) !== undefined || error instanceof InvalidKubeconfigSecretError) return 'unusable';
  if (error instanceof KubeconfigSecretNotFoundError || error instanceof ClusterNotReachableError || error instanceof RequestTimeoutError) return 'wait';
  if (error instanceof ApiError) return error.code >= 500 ? 'wait' : 'error';
  // Node's system errors (ECONNREFUSED, ECONNRESET, …): the connection failed before any answer.
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? 'wait' : 'error';
}
