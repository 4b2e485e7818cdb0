// D-7, D-20: a deleted Metal3Data waits for its claim to go (phase `claim deletion`), then gives back
// its IP addresses by deleting the claims it made, after taking its finalizer off them (phase `ip
// claim release`; the IPAM then releases the address and lets the claim go).
//
// Changed from upstream (E-18, docs/compatibility.md): the claims are found by what they are, not by
// recomputing pool names from the template: every IPClaim and IPAddressClaim owned by this
// Metal3Data (its uid in their ownerReferences), plus the IPClaims labelled with its name (D-17
// preallocation). Pools named through `fromPoolAnnotation`, which upstream cannot recompute without
// the machine and so leaves claimed forever, are released too; so are claims of a template that is
// already gone.
import type { Api, Client, KubeObject } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { type IPClaim, IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { DATA_NAME_LABEL, METAL3_DATA_FINALIZER } from '../names.ts';
import { isOwnedBy } from '../decisions/ip-claims.ts';
import type { PhaseContext, PhaseResult } from '../phase.ts';
import { type DataScope, releaseCandidates } from '../scope.ts';

/** D-7: the claim's own deletion (by the allocation side) comes first; its delete event wakes us. Writes nothing. */
export function awaitClaimDeletion(ctx: PhaseContext, scope: DataScope): PhaseResult {
  const claim = scope.cached.spec?.claim?.name;
  if (!claim || !ctx.informers.claims.store.get({ namespace: scope.cached.metadata.namespace, name: claim })) return undefined;
  return { kind: 'AwaitingClaimDeletion', claim };
}

/** D-20. Writes: our IP claims (finalizer off, deleted). Records `released`. */
export async function releaseIpClaims(ctx: PhaseContext, scope: DataScope): Promise<PhaseResult> {
  scope.observed.released = await releaseClaims(ctx.client, scope.cached, releaseCandidates(ctx.informers, scope.cached));
  return undefined;
}

/**
 * The claims of `candidates` this Metal3Data must release, each once, in name order. A claim already
 * deleted and no longer held by our finalizer is done (the IPAM finishes it), so a repeated release
 * is a no-op.
 */
export function claimsToRelease<T extends KubeObject>(data: Readonly<Metal3Data>, candidates: readonly Readonly<T>[]): Readonly<T>[] {
  const name = data.metadata.name;
  const namespace = data.metadata.namespace;
  const chosen = new Map<string, Readonly<T>>();
  for (const claim of candidates) {
    if (claim.metadata.namespace !== namespace) continue;
    if (claim.metadata.deletionTimestamp && !hasFinalizer(claim, METAL3_DATA_FINALIZER)) continue;
    const labelled = name !== undefined && claim.metadata.labels?.[DATA_NAME_LABEL] === name;
    if (isOwnedBy(claim, data) || labelled) chosen.set(claim.metadata.name ?? '', claim);
  }
  return [...chosen.keys()].sort().map((k) => chosen.get(k)!);
}

export interface ReleaseCandidates {
  readonly ipClaims: readonly Readonly<IPClaim>[];
  readonly ipAddressClaims: readonly Readonly<capi.IPAddressClaim>[];
}

/** Takes our finalizer off each claim to release and deletes it; returns the names released. */
export async function releaseClaims(client: Client, data: Readonly<Metal3Data>, candidates: ReleaseCandidates): Promise<string[]> {
  const namespace = data.metadata.namespace ?? '';
  const released: string[] = [];
  for (const claim of claimsToRelease(data, candidates.ipClaims)) {
    await release(client.api(IPClaimResource, namespace), claim);
    released.push(claim.metadata.name ?? '');
  }
  for (const claim of claimsToRelease(data, candidates.ipAddressClaims)) {
    await release(client.api(capi.IPAddressClaimResource, namespace), claim);
    released.push(claim.metadata.name ?? '');
  }
  return released;
}

async function release<T extends KubeObject>(api: Api<T>, claim: Readonly<T>): Promise<void> {
  const name = claim.metadata.name ?? '';
  await removeFinalizerGuarded(api, structuredClone(claim) as T, METAL3_DATA_FINALIZER);
  if (claim.metadata.deletionTimestamp) return;
  try {
    await api.delete(name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
