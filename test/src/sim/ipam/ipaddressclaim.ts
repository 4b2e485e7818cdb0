// One Cluster API IPAddressClaim (`ipam.cluster.x-k8s.io/v1beta1`) whose `spec.poolRef` names a Metal3
// IPPool: the same allocation as a Metal3 IPClaim, answered the Cluster API way (a CAPI IPAddress,
// `status.addressRef`, a `Ready` condition) — what the Metal3 IP address manager does for that flavour.
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import {
  type IPAddress,
  type IPAddressClaim,
  IPAddressClaimResource,
  IPAddressResource,
  newIPAddress,
} from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { ConditionSeverity, READY_CONDITION } from '@metal3-ts/shared/conditions/types';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { createAddressFor, type Created } from './create-address.ts';
import { addressName, type Allocation, EXHAUSTED_MESSAGE } from './allocation.ts';
import {
  ALLOCATION_FAILED_REASON,
  CAPI_IPADDRESS_FINALIZER,
  CAPI_IPADDRESSCLAIM_FINALIZER,
  IPPOOL_KIND,
  METAL3_IPAM_GROUP,
  POOL_EXHAUSTED_REASON,
} from './names.ts';
import { addressOwners, type PoolContext, poolName, poolNamespace, releaseAllocation } from './pool-context.ts';

/** Whether a poolRef (of a claim or an address) names a Metal3 IPPool called `name`. */
export function refersToMetal3Pool(ref: { apiGroup?: string; kind: string; name: string } | undefined, name?: string): boolean {
  return ref?.apiGroup === METAL3_IPAM_GROUP && ref.kind === IPPOOL_KIND && (name === undefined || ref.name === name);
}

/** Whether the pool handles this claim now; a failed claim keeps its failure (as the real manager). */
export function ipAddressClaimNeedsWork(claim: Readonly<IPAddressClaim>): boolean {
  if (claim.metadata.deletionTimestamp) return true;
  if (claim.status?.addressRef?.name) return false;
  const reason = getCondition(claim, READY_CONDITION)?.reason;
  return reason !== ALLOCATION_FAILED_REASON && reason !== POOL_EXHAUSTED_REASON;
}

function addressOfClaim(ctx: PoolContext, addresses: Store<IPAddress>, claimName: string): Readonly<IPAddress> | undefined {
  return addresses.list(poolNamespace(ctx)).find((a) => refersToMetal3Pool(a.spec?.poolRef, poolName(ctx)) && a.spec?.claimRef.name === claimName);
}

export async function reconcileIPAddressClaim(ctx: PoolContext, addresses: Store<IPAddress>, claim: Readonly<IPAddressClaim>): Promise<void> {
  if (claim.metadata.deletionTimestamp) await release(ctx, addresses, claim);
  else await allocateClaim(ctx, addresses, claim);
}

async function allocateClaim(ctx: PoolContext, addresses: Store<IPAddress>, cached: Readonly<IPAddressClaim>): Promise<void> {
  const claimApi = ctx.client.api(IPAddressClaimResource, poolNamespace(ctx));
  const written = await ensureFinalizer(claimApi, structuredClone(cached) as IPAddressClaim, CAPI_IPADDRESSCLAIM_FINALIZER);
  const claim = structuredClone(written ?? cached) as IPAddressClaim;
  const helper = new PatchHelper(claim, claimApi);
  const claimName = claim.metadata.name ?? '';
  const known = ctx.inventory.indexes[claimName];
  const result = known !== undefined ? { name: addressName(ctx.pool.spec?.namePrefix ?? '', known) } : await createAddress(ctx, addresses, claim);
  if ('error' in result) {
    const reason = result.error.startsWith(EXHAUSTED_MESSAGE) ? POOL_EXHAUSTED_REASON : ALLOCATION_FAILED_REASON;
    markFalse(claim, READY_CONDITION, reason, ConditionSeverity.Error, result.error);
  } else {
    (claim.status ??= {}).addressRef = { name: result.name };
    markTrue(claim, READY_CONDITION);
  }
  await helper.patch(claim, { ownedConditions: [READY_CONDITION] });
}

function createAddress(ctx: PoolContext, addresses: Store<IPAddress>, claim: IPAddressClaim): Promise<Created> {
  const claimName = claim.metadata.name ?? '';
  return createAddressFor(ctx, claimName, addressOfClaim(ctx, addresses, claimName), {
    api: ctx.client.api(IPAddressResource, poolNamespace(ctx)),
    build: (allocation) => addressObject(ctx, claim, allocation),
    holdsClaim: (existing) => existing.spec?.claimRef.name === claimName && refersToMetal3Pool(existing.spec.poolRef, poolName(ctx)),
  });
}

function addressObject(ctx: PoolContext, claim: IPAddressClaim, allocation: Allocation): IPAddress {
  return newIPAddress({
    metadata: {
      name: addressName(ctx.pool.spec?.namePrefix ?? '', allocation.address),
      namespace: poolNamespace(ctx),
      finalizers: [CAPI_IPADDRESS_FINALIZER],
      ownerReferences: addressOwners(ctx, claim),
      ...(claim.metadata.labels ? { labels: { ...claim.metadata.labels } } : {}),
    },
    spec: {
      address: allocation.address,
      poolRef: { apiGroup: METAL3_IPAM_GROUP, kind: IPPOOL_KIND, name: poolName(ctx) },
      claimRef: { name: claim.metadata.name ?? '' },
      prefix: allocation.prefix,
      // The CRD refuses an empty gateway; the real manager's empty string is dropped by omitempty.
      ...(allocation.gateway ? { gateway: allocation.gateway } : {}),
    },
  });
}

async function release(ctx: PoolContext, addresses: Store<IPAddress>, claim: Readonly<IPAddressClaim>): Promise<void> {
  if ((claim.metadata.finalizers ?? []).some((f) => f !== CAPI_IPADDRESSCLAIM_FINALIZER)) return;
  const namespace = poolNamespace(ctx);
  const claimName = claim.metadata.name ?? '';
  const address = addressOfClaim(ctx, addresses, claimName);
  if (address) {
    const api = ctx.client.api(IPAddressResource, namespace);
    await removeFinalizerGuarded(api, structuredClone(address) as IPAddress, CAPI_IPADDRESS_FINALIZER);
    try {
      await api.delete(address.metadata.name ?? '');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await removeFinalizerGuarded(ctx.client.api(IPAddressClaimResource, namespace), structuredClone(claim) as IPAddressClaim, CAPI_IPADDRESSCLAIM_FINALIZER);
  releaseAllocation(ctx, claimName);
}
