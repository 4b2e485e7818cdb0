// Host selection for one consumer (research section 2), as a pure decision over a list of hosts. The
// hosts may come from the inventory (cache index lookups) or from a live list; either way they are
// considered in name order, which is the order the apiserver lists them in and the order the
// node-reuse rule (H-10) depends on.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { type HostConsumer, isClaimedBy } from './consumer.ts';
import { hostSelectorRequirements, InvalidHostSelectorError, type LabelRequirement, labelValueProblem, matchesRequirements } from './label-selector.ts';
import { DEPRECATED_UNHEALTHY_ANNOTATION, FAILURE_DOMAIN_LABEL, NODE_REUSE_LABEL, UNHEALTHY_ANNOTATION } from './names.ts';
import { hasError, isAvailableState, isBeingDeleted, isClaimed, isPaused, isUnhealthy, provisioningState } from './states.ts';

/** Returns an integer in [0, n) for n ≥ 1. */
export type RandomIndex = (n: number) => number;

/** Uniform choice from Web Crypto (Node and Deno), without modulo bias, as CAPM3 uses crypto/rand (H-12). */
export const cryptoRandomIndex: RandomIndex = (n) => {
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`cannot pick from ${n} candidates`);
  const limit = Math.floor(2 ** 32 / n) * n;
  const word = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(word);
    const value = word[0] ?? 0;
    if (value < limit) return value % n;
  }
};

export type HostChoice =
  /** The consumer already holds this host (H-4): claiming it again is idempotent. */
  | { readonly outcome: 'owned'; readonly host: Readonly<BareMetalHost> }
  /** A host reserved for this consumer's control plane or MachineDeployment (H-7, H-10). */
  | { readonly outcome: 'reused'; readonly host: Readonly<BareMetalHost> }
  /** A random available host, from the consumer's failure domain when it has any there (H-12). */
  | { readonly outcome: 'picked'; readonly host: Readonly<BareMetalHost> }
  /**
   * A host reserved for this consumer is not `ready`/`available` yet (typically still
   * deprovisioning): selection waits for it rather than taking another host (H-10, E-32).
   */
  | { readonly outcome: 'reuse-pending'; readonly host: Readonly<BareMetalHost> }
  /** Nothing to take (H-11): wait for a host to become available. */
  | { readonly outcome: 'none' };

export interface ChooseHostOptions {
  readonly random?: RandomIndex;
  /**
   * Hosts to pick only when no other candidate is left (hosts another worker of this process is
   * claiming right now): fewer lost claims, each of which costs writes. A preference, not a rule:
   * the outcome is the same as without it whenever these are the only candidates.
   */
  readonly avoid?: (host: Readonly<BareMetalHost>) => boolean;
}

/** Why a host is not one `consumer` may select (H-1, H-2, H-3, H-5, H-6, H-8), in the rules' order. */
export type Exclusion =
  | 'other namespace'
  | 'selector'
  | 'claimed'
  | 'reserved for another consumer'
  | 'being deleted'
  | 'in error'
  | 'paused'
  | 'unhealthy'
  | 'state';

const EXCLUSION_TEXT: Record<Exclusion, string> = {
  'other namespace': 'is in another namespace',
  selector: 'does not match the host selector',
  claimed: 'is already consumed',
  'reserved for another consumer': 'is reserved for node reuse by another machine',
  'being deleted': 'is being deleted',
  'in error': 'is in error',
  paused: 'is paused',
  unhealthy: 'is marked unhealthy',
  state: 'is not ready or available',
};

/** Words for an exclusion, to follow `BareMetalHost <ns>/<name>` in a message. */
export function exclusionText(exclusion: Exclusion, host: Readonly<BareMetalHost>): string {
  if (exclusion === 'state') return `is ${JSON.stringify(provisioningState(host) || 'unregistered')}, not ready or available`;
  // Upstream logs the old key as a migration warning (B2-11); here it is where the user reads why.
  if (exclusion === 'unhealthy' && !(UNHEALTHY_ANNOTATION in (host.metadata.annotations ?? {}))) {
    return `is marked unhealthy by the deprecated annotation ${DEPRECATED_UNHEALTHY_ANNOTATION} (use ${UNHEALTHY_ANNOTATION})`;
  }
  return EXCLUSION_TEXT[exclusion];
}

/**
 * The first rule that keeps `host` from `consumer`, or undefined when it is a candidate (a host
 * reserved for this consumer is one in any state, H-7). Ignores H-4: a host the consumer already
 * holds is the caller's business. Throws InvalidHostSelectorError for an invalid selector.
 */
export function exclusionOf(host: Readonly<BareMetalHost>, consumer: HostConsumer): Exclusion | undefined {
  return exclude(host, consumer, hostSelectorRequirements(consumer.hostSelector));
}

function exclude(host: Readonly<BareMetalHost>, consumer: HostConsumer, requirements: readonly LabelRequirement[]): Exclusion | undefined {
  if (host.metadata.namespace !== consumer.ref.namespace) return 'other namespace';
  if (!matchesRequirements(requirements, host.metadata.labels)) return 'selector';
  if (isClaimed(host)) return 'claimed';
  const reservedForUs = nodeReuseLabelMatches(host, consumer.nodeReuseName);
  if (NODE_REUSE_LABEL in (host.metadata.labels ?? {}) && !reservedForUs) return 'reserved for another consumer';
  if (isBeingDeleted(host)) return 'being deleted';
  if (hasError(host)) return 'in error';
  if (isPaused(host)) return 'paused';
  if (isUnhealthy(host)) return 'unhealthy';
  if (!reservedForUs && !isAvailableState(provisioningState(host))) return 'state';
  return undefined;
}

/** Hosts in name order (code-unit order, not locale): every list a choice is made from is sorted by it, so choices repeat. */
export const byHostName = (a: Readonly<BareMetalHost>, b: Readonly<BareMetalHost>): number => {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The host's node-reuse reservation matches this consumer (N-5): label non-empty and equal to its reuse name. */
export function nodeReuseLabelMatches(host: Readonly<BareMetalHost>, nodeReuseName: string | undefined): boolean {
  const value = host.metadata.labels?.[NODE_REUSE_LABEL];
  return value !== undefined && value !== '' && value === nodeReuseName;
}

/** The first host (name order) whose consumerRef names this consumer, if any. */
export function ownedHost(hosts: readonly Readonly<BareMetalHost>[], consumer: HostConsumer): Readonly<BareMetalHost> | undefined {
  return [...hosts].sort(byHostName).find((host) => host.metadata.namespace === consumer.ref.namespace && isClaimedBy(host, consumer.ref));
}

/**
 * Chooses the host `consumer` should claim.
 *
 * Rules, in order (research IDs):
 * - only hosts in the consumer's namespace count (H-1);
 * - a host already claimed by this consumer wins at once, whatever else is true of it (H-4, E-31).
 *   Deliberate difference: CAPM3 only finds it among hosts matching the selector; we find it even
 *   after the selector changed, so a consumer never ends up holding two hosts;
 * - the rest must match the host selector (H-2, H-3) and must not be claimed (H-5), reserved for
 *   another consumer by a node-reuse label, being deleted, in error, paused or unhealthy (H-6);
 * - hosts reserved for this consumer are taken in any state (H-7) and shut out every other host:
 *   the last one (name order) in `ready`/`available` wins, and any one in another state makes the
 *   whole choice `reuse-pending` (H-10, E-32);
 * - otherwise hosts in `ready`/`available` without a reservation are candidates (H-8); with a
 *   failure domain, those labelled with it are preferred (H-12); the pick is uniformly random.
 *
 * Throws InvalidHostSelectorError for an invalid selector or failure domain (not retryable).
 */
export function chooseHost(hosts: readonly Readonly<BareMetalHost>[], consumer: HostConsumer, options: ChooseHostOptions = {}): HostChoice {
  const requirements = hostSelectorRequirements(consumer.hostSelector);
  const failureDomain = consumer.failureDomain ?? '';
  const domainProblem = labelValueProblem(failureDomain);
  if (domainProblem) throw new InvalidHostSelectorError(`invalid failure domain ${JSON.stringify(failureDomain)}: ${domainProblem}`);

  const inNamespace = hosts.filter((host) => host.metadata.namespace === consumer.ref.namespace).sort(byHostName);
  const owned = inNamespace.find((host) => isClaimedBy(host, consumer.ref));
  if (owned) return { outcome: 'owned', host: owned };

  const reserved: Readonly<BareMetalHost>[] = [];
  const candidates: Readonly<BareMetalHost>[] = [];
  for (const host of inNamespace) {
    if (exclude(host, consumer, requirements) !== undefined) continue;
    if (nodeReuseLabelMatches(host, consumer.nodeReuseName)) reserved.push(host);
    else candidates.push(host);
  }

  if (reserved.length > 0) {
    let chosen: Readonly<BareMetalHost> | undefined;
    for (const host of reserved) {
      if (!isAvailableState(provisioningState(host))) return { outcome: 'reuse-pending', host };
      chosen = host;
    }
    return chosen ? { outcome: 'reused', host: chosen } : { outcome: 'none' };
  }
  if (candidates.length === 0) return { outcome: 'none' };

  const inDomain = failureDomain === '' ? [] : candidates.filter((host) => host.metadata.labels?.[FAILURE_DOMAIN_LABEL] === failureDomain);
  const preferred = inDomain.length > 0 ? inDomain : candidates;
  const open = options.avoid ? preferred.filter((host) => !options.avoid!(host)) : preferred;
  const pool = open.length > 0 ? open : preferred;
  const random = options.random ?? cryptoRandomIndex;
  const host = pool[random(pool.length)];
  if (!host) throw new RangeError(`random index out of range for ${pool.length} candidates`);
  return { outcome: 'picked', host };
}
