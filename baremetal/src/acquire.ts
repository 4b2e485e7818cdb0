// Acquiring a host: choose, claim, and when another claimer wins the race, choose again from what
// the lost claim learned, until the consumer holds a host or there is none to take. Concurrency
// safety comes from the locked claim, not from a process-wide mutex: a host never gets two consumers.
// It does not stop two replicas reconciling the *same* consumer at once from each claiming a different
// host; the Metal3Machine controller therefore records its choice on the consumer first, locked on the
// consumer's resourceVersion, and claims only after that (controllers/machine/src/phases/host-record.ts).
import type { Client } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { claimHost, type ClaimOptions, type HostClaim } from './claim.ts';
import type { HostConsumer } from './consumer.ts';
import { hostSelectorRequirements, selectorString } from './label-selector.ts';
import { chooseHost, type HostChoice, type RandomIndex } from './selection.ts';

/** Where the candidate hosts come from: an inventory lookup or a live list. */
export type HostCandidates = (consumer: HostConsumer) => readonly Readonly<BareMetalHost>[] | Promise<readonly Readonly<BareMetalHost>[]>;

export type AcquireOutcome =
  /** The consumer holds `host`; `choice` says how it was found, `changed` whether a write was needed. */
  | { readonly acquired: true; readonly host: BareMetalHost; readonly choice: 'owned' | 'reused' | 'picked'; readonly changed: boolean }
  /** No host to take now (H-11), or a host reserved for this consumer is not ready yet (H-10). */
  | { readonly acquired: false; readonly reason: 'none' }
  | { readonly acquired: false; readonly reason: 'reuse-pending'; readonly host: Readonly<BareMetalHost> }
  /** Lost `attempts` races in a row: others are taking hosts fast; try again shortly. */
  | { readonly acquired: false; readonly reason: 'contended' };

export interface AcquireOptions extends Pick<ClaimOptions, 'onWrite' | 'fieldManager'> {
  readonly candidates: HostCandidates;
  /** Choices to try before giving up with `contended` (default 8). */
  readonly attempts?: number;
  readonly random?: RandomIndex;
}

/**
 * Chooses and claims a host for `consumer`, writing `claim` (consumerRef and owner reference from
 * `consumer.ref`, plus its labels and annotations).
 *
 * A lost race teaches the loop the host's current state (a re-read by claimHost); that copy replaces
 * the candidate's stale one until the candidate source catches up, so a lagging cache cannot make
 * the loop retry a host it already knows is taken. Each lost race means another consumer won a
 * host, so with N hosts at most N races are lost before the answer is `none`.
 *
 * Errors: InvalidHostSelectorError (not retryable), and unexpected API errors.
 */
export async function acquireHost(
  client: Client,
  consumer: HostConsumer,
  claim: Omit<HostClaim, 'consumer'>,
  options: AcquireOptions,
): Promise<AcquireOutcome> {
  const learned = new Map<string, { readonly staleVersion: string | undefined; readonly host: Readonly<BareMetalHost> | undefined }>();
  const attempts = Math.max(1, options.attempts ?? 8);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const hosts = (await options.candidates(consumer)).flatMap((host) => {
      const known = learned.get(host.metadata.name ?? '');
      if (!known || known.staleVersion !== host.metadata.resourceVersion) return [host];
      return known.host ? [known.host] : [];
    });
    const choice: HostChoice = chooseHost(hosts, consumer, options.random ? { random: options.random } : {});
    if (choice.outcome === 'none') return { acquired: false, reason: 'none' };
    if (choice.outcome === 'reuse-pending') return { acquired: false, reason: 'reuse-pending', host: choice.host };
    const result = await claimHost(client, choice.host, { ...claim, consumer: consumer.ref }, options);
    if (result.claimed) return { acquired: true, host: result.host, choice: choice.outcome, changed: result.changed };
    learned.set(choice.host.metadata.name ?? '', {
      staleVersion: choice.host.metadata.resourceVersion,
      host: result.reason === 'gone' ? undefined : result.host,
    });
  }
  return { acquired: false, reason: 'contended' };
}

/**
 * Candidates from a live list of the consumer's namespace, filtered by its selector on the server
 * (CAPM3's way, H-1; O(hosts) per call, so prefer an inventory). Unlike the inventory it cannot
 * find a host this consumer holds that no longer matches the selector.
 */
export function listedCandidates(client: Client): HostCandidates {
  return async (consumer) => {
    const labelSelector = selectorString(hostSelectorRequirements(consumer.hostSelector));
    const api = client.api(BareMetalHostResource, consumer.ref.namespace);
    const hosts: BareMetalHost[] = [];
    for await (const host of api.listAll(labelSelector ? { labelSelector } : {})) hosts.push(host);
    return hosts;
  };
}
