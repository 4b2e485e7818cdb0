// Claiming a host for a consumer (M-22 steps 4-5, M-24): one merge patch, locked on the
// resourceVersion of the copy the claimer decided on. If anyone wrote the host since (another claimer
// above all), the apiserver refuses the patch with a Conflict, so two claimers can never both win:
// the loser is told so as a value, with the host as it is now, and never by an exception.
import { type Client, ignoreNotFound, type OwnerReference } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource, type BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { type ConsumerReference, consumerRefFor, isClaimedBy } from './consumer.ts';
import { copyHost, type HostWriteOptions, patchHost } from './host-patch.ts';
import { NODE_REUSE_LABEL } from './names.ts';
import { isClaimed } from './states.ts';

export interface HostClaim {
  readonly consumer: ConsumerReference;
  /** Labels to set on the host, e.g. `cluster.x-k8s.io/cluster-name` (M-22 step 4). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * Make the consumer the host's controller owner (M-24). Default: when `consumer.uid` is known.
   * Needs `consumer.uid`.
   */
  readonly controllerOwner?: boolean;
}

/**
 * `host` is the apiserver's copy after our write or re-read, or, when nothing was sent, the copy the
 * caller passed in (possibly a frozen cache object: copy it before changing it).
 */
export type ClaimOutcome =
  /** The host is ours; `changed` is false when it already was, exactly as asked (idempotent re-claim). */
  | { readonly claimed: true; readonly host: BareMetalHost; readonly changed: boolean }
  /**
   * Not ours. `taken`: another consumer holds it. `conflict`: it changed since the copy we decided
   * on but is still unclaimed (decide again with `host`, the current copy). `gone`: it was deleted.
   */
  | { readonly claimed: false; readonly reason: 'taken' | 'conflict'; readonly host: BareMetalHost }
  | { readonly claimed: false; readonly reason: 'gone' };

const sameOwner = (a: OwnerReference, consumer: ConsumerReference): boolean =>
  a.name === consumer.name && a.kind === consumer.kind && apiGroupOf(a.apiVersion) === apiGroupOf(consumer.apiVersion);

/**
 * The host as claimed by `claim.consumer`: consumerRef set; the consumer as controller owner (an
 * existing owner reference with the same name, kind and API group is updated in place); the given
 * labels and annotations set; any node-reuse reservation removed, since it has served its purpose
 * (M-24, N-6). Everything else is kept.
 */
export function claimedHost(host: Readonly<BareMetalHost>, claim: HostClaim): BareMetalHost {
  const next = copyHost(host);
  const { consumer } = claim;
  // A served host always has a spec (`online` is required); never invent `online` here.
  next.spec = { ...next.spec, consumerRef: consumerRefFor(consumer) } as BareMetalHostSpec;

  const ownerWanted = claim.controllerOwner ?? consumer.uid !== undefined;
  if (ownerWanted) {
    if (!consumer.uid) throw new TypeError(`controller owner ${consumer.kind} ${consumer.namespace}/${consumer.name} needs a uid`);
    const owner: OwnerReference = { apiVersion: consumer.apiVersion, kind: consumer.kind, name: consumer.name, uid: consumer.uid, controller: true };
    const owners = next.metadata.ownerReferences ?? [];
    const at = owners.findIndex((ref) => sameOwner(ref, consumer));
    next.metadata.ownerReferences = at < 0
      ? [...owners, owner]
      : owners.map((ref, i) => (i === at ? { ...ref, apiVersion: owner.apiVersion, uid: owner.uid, controller: true } : ref));
  }

  const labels = { ...(next.metadata.labels ?? {}), ...(claim.labels ?? {}) };
  delete labels[NODE_REUSE_LABEL];
  if (Object.keys(labels).length > 0 || next.metadata.labels) next.metadata.labels = labels;
  if (claim.annotations && Object.keys(claim.annotations).length > 0) {
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...claim.annotations };
  }
  return next;
}

export interface ClaimOptions extends Pick<HostWriteOptions, 'onWrite' | 'fieldManager'> {
  /** Re-reads and retries while the host keeps changing but stays ours to take (default 3). */
  readonly attempts?: number;
  /**
   * More of the host to write in the same locked patch as the claim (its provisioning, M-25): given
   * the claimed host, returns it with those fields set. Under the one lock, the fields land with the
   * claim or not at all, so they never reach a host another consumer took.
   */
  readonly alongside?: (claimed: BareMetalHost) => BareMetalHost;
}

/**
 * Claims `host` (the copy the caller chose it from, with its resourceVersion) for `claim.consumer`.
 *
 * Guarantees: of any number of concurrent claimers of one host, across processes, at most one
 * consumer gets `claimed: true`; a host another consumer holds is never overwritten. Claiming a host the consumer
 * already holds sends nothing when it is already as asked, and otherwise completes the claim.
 *
 * Errors: only unexpected API failures throw; lost races and deleted hosts are outcomes.
 */
export async function claimHost(client: Client, host: Readonly<BareMetalHost>, claim: HostClaim, options: ClaimOptions = {}): Promise<ClaimOutcome> {
  const attempts = Math.max(1, options.attempts ?? 3);
  const { consumer } = claim;
  const outcome = await retryOnConflict<Readonly<BareMetalHost>, ClaimOutcome>(
    host,
    async (current, attempt) => {
      if (isClaimed(current) && !isClaimedBy(current, consumer)) return { claimed: false, reason: 'taken', host: current as BareMetalHost };
      // After a lost race the copy is fresh. Still free but changed: whether it is still a good
      // choice is the selector's call, not ours. Ours (we held it already, or a concurrent reconcile
      // of the same consumer claimed it): finish the claim on it, `attempts` writes in all.
      if (attempt > 1 && !isClaimedBy(current, consumer)) return { claimed: false, reason: 'conflict', host: current as BareMetalHost };
      if (attempt > attempts) return { claimed: false, reason: 'conflict', host: current as BareMetalHost };
      const claimed = claimedHost(current, claim);
      const written = await patchHost(client, current, options.alongside ? options.alongside(claimed) : claimed, {
        onWrite: options.onWrite,
        fieldManager: options.fieldManager,
        optimisticLock: true,
      });
      return written ? { claimed: true, host: written, changed: true } : { claimed: true, host: current as BareMetalHost, changed: false };
    },
    {
      what: `BareMetalHost ${host.metadata.namespace}/${host.metadata.name}: claiming it for ${consumer.kind} ${consumer.name}`,
      reread: () => readHost(client, host),
      // One more round than writes: the last re-read is judged (and told), never written.
      attempts: attempts + 1,
    },
  );
  return outcome ?? { claimed: false, reason: 'gone' };
}

/** A fresh read of `host` from the apiserver (never the cache), or undefined once it is gone. */
export function readHost(client: Client, host: Readonly<BareMetalHost>): Promise<BareMetalHost | undefined> {
  return ignoreNotFound(client.api(BareMetalHostResource, host.metadata.namespace).get(host.metadata.name ?? ''));
}
