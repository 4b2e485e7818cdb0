// Bad input and failed writes, told to the user on the claim (status.errorMessage, upstream's only
// channel, DC-2) and as a Warning event (ours). Only a changed message is written, so a claim that
// stays broken costs nothing on later reconciles.
import type { Api } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';

/** Writes `message` to status.errorMessage (null clears it) unless it already says that. */
export async function writeErrorMessage(
  api: Pick<Api<Metal3DataClaim>, 'mergePatchStatus'>,
  claim: Readonly<Metal3DataClaim>,
  message: string | null,
): Promise<boolean> {
  if ((claim.status?.errorMessage || null) === message) return false;
  try {
    await api.mergePatchStatus(claim.metadata.name ?? '', { status: { errorMessage: message } });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** errorMessage plus a Warning event when the message is new. */
export async function reportProblem(
  api: Pick<Api<Metal3DataClaim>, 'mergePatchStatus'>,
  events: EventRecorder | undefined,
  claim: Readonly<Metal3DataClaim>,
  reason: string,
  message: string,
): Promise<void> {
  if (await writeErrorMessage(api, claim, message)) events?.warning(claim, reason, message);
}
