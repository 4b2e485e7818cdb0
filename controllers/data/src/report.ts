// What a Metal3Data reconcile tells people besides its status: a Warning event when the status gets a
// new problem message (the same words), a Normal event for Secrets rendered and IP claims given back,
// and a log line for a wait. Read from the observations after the phases; it writes nothing else.
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Observations } from './observations.ts';
import { describeInvalid } from './status.ts';

/** `observed.data` is the object as it was before this reconcile's patch. */
export function report(events: EventRecorder | undefined, log: Logger, observed: Readonly<Observations>): void {
  const { data, outcome, released } = observed;
  if (released && released.length > 0) {
    log.info('Released IP claims', { claims: released });
    events?.normal(data, 'IPClaimsReleased', `Released IP claims ${released.join(', ')}`);
  }
  switch (outcome?.kind) {
    case 'Invalid': {
      const message = describeInvalid(outcome);
      if (data.status?.errorMessage !== message) events?.warning(data, outcome.cause, message);
      log.info('Metal3Data cannot be rendered', { reason: outcome.cause, message });
      return;
    }
    case 'SecretConflict':
      if (data.status?.errorMessage !== outcome.message) events?.warning(data, 'SecretConflict', outcome.message);
      log.info('Metal3Data cannot be rendered', { reason: 'SecretConflict', message: outcome.message });
      return;
    case 'Waiting':
      log.info(outcome.reason);
      return;
    case 'AwaitingClaimDeletion':
      log.info('Waiting for the Metal3DataClaim to be deleted before releasing IP addresses', { claim: outcome.claim });
      return;
    case 'Ready':
      if (outcome.created.length > 0) events?.normal(data, 'SecretsRendered', `Rendered Secrets ${outcome.created.join(', ')}`);
      return;
    default:
      return;
  }
}
