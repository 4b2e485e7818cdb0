// One Metal3 IPClaim of a pool: allocate (finalizer, IPAddress, `status.address`) or, once the claim
// is deleted and only our finalizer holds it, release (IPAddress deleted, finalizer removed).
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type IPAddress, IPAddressResource, type IPClaim, IPClaimResource, newIPAddress } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { createAddressFor, type Created } from './create-address.ts';
import { addressName, type Allocation } from './allocation.ts';
import { IPADDRESS_FINALIZER, IPCLAIM_FINALIZER } from './names.ts';
import { addressOwners, type PoolContext, poolName, poolNamespace, releaseAllocation } from './pool-context.ts';

/** Whether the pool handles this claim now (the real manager's filter, errors being sticky). */
export function ipClaimNeedsWork(claim: Readonly<IPClaim>): boolean {
  if (claim.metadata.deletionTimestamp) return true;
  // A claim that failed keeps its error until it is deleted: the real manager never retries it.
  return claim.status?.address === undefined && claim.status?.errorMessage === undefined;
}

/** Other finalizers mean someone (CAPM3's Metal3Data) still uses the address. */
function stillInUse(claim: Readonly<IPClaim>): boolean {
  return (claim.metadata.finalizers ?? []).some((f) => f !== IPCLAIM_FINALIZER);
}

/** The IPAddress of the pool recorded for `claimName`, if the cache has one. */
function addressOfClaim(ctx: PoolContext, addresses: Store<IPAddress>, claimName: string): Readonly<IPAddress> | undefined {
  return addresses
    .list(poolNamespace(ctx))
    .find((a) => a.spec?.pool.name === poolName(ctx) && a.spec?.claim.name === claimName);
}

export async function reconcileIPClaim(ctx: PoolContext, addresses: Store<IPAddress>, claim: Readonly<IPClaim>): Promise<void> {
  if (claim.metadata.deletionTimestamp) await releaseIPClaim(ctx, claim);
  else await allocateIPClaim(ctx, addresses, claim);
}

async function allocateIPClaim(ctx: PoolContext, addresses: Store<IPAddress>, cached: Readonly<IPClaim>): Promise<void> {
  const namespace = poolNamespace(ctx);
  const claimApi = ctx.client.api(IPClaimResource, namespace);
  const written = await ensureFinalizer(claimApi, structuredClone(cached) as IPClaim, IPCLAIM_FINALIZER);
  const claim = structuredClone(written ?? cached) as IPClaim;
  const helper = new PatchHelper(claim, claimApi);
  const status = (claim.status ??= {});
  delete status.errorMessage;
  const claimName = claim.metadata.name ?? '';
  const known = ctx.inventory.indexes[claimName];
  if (known !== undefined) {
    status.address = { name: addressName(ctx.pool.spec?.namePrefix ?? '', known), namespace };
  } else {
    const result = await createAddress(ctx, addresses, claim);
    if ('error' in result) status.errorMessage = result.error;
    else status.address = { name: result.name, namespace };
  }
  await helper.patch(claim);
}

function createAddress(ctx: PoolContext, addresses: Store<IPAddress>, claim: IPClaim): Promise<Created> {
  const claimName = claim.metadata.name ?? '';
  return createAddressFor(ctx, claimName, addressOfClaim(ctx, addresses, claimName), {
    api: ctx.client.api(IPAddressResource, poolNamespace(ctx)),
    build: (allocation) => addressObject(ctx, claim, allocation),
    holdsClaim: (existing) => existing.spec?.claim.name === claimName && existing.spec.pool.name === poolName(ctx),
  });
}

function addressObject(ctx: PoolContext, claim: IPClaim, allocation: Allocation): IPAddress {
  const namespace = poolNamespace(ctx);
  return newIPAddress({
    metadata: {
      name: addressName(ctx.pool.spec?.namePrefix ?? '', allocation.address),
      namespace,
      finalizers: [IPADDRESS_FINALIZER],
      ownerReferences: addressOwners(ctx, claim),
      ...(claim.metadata.labels ? { labels: { ...claim.metadata.labels } } : {}),
    },
    spec: {
      address: allocation.address,
      pool: { name: poolName(ctx), namespace },
      claim: { name: claim.metadata.name ?? '', namespace },
      prefix: allocation.prefix,
      ...(allocation.gateway !== undefined ? { gateway: allocation.gateway } : {}),
      ...(allocation.dnsServers !== undefined ? { dnsServers: [...allocation.dnsServers] } : {}),
    },
  });
}

async function releaseIPClaim(ctx: PoolContext, claim: Readonly<IPClaim>): Promise<void> {
  if (stillInUse(claim)) return;
  const namespace = poolNamespace(ctx);
  const claimName = claim.metadata.name ?? '';
  const api = ctx.client.api(IPAddressResource, namespace);
  // Read live, not from the cache: an address created moments ago (or while a watch was down) may not
  // be cached yet, and releasing the claim without it would leak the address for good.
  const live = (await api.list()).items.filter((a) => a.spec?.pool.name === poolName(ctx) && a.spec?.claim.name === claimName);
  for (const address of live) {
    await removeFinalizerGuarded(api, structuredClone(address) as IPAddress, IPADDRESS_FINALIZER);
    try {
      await api.delete(address.metadata.name ?? '');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await removeFinalizerGuarded(ctx.client.api(IPClaimResource, namespace), structuredClone(claim) as IPClaim, IPCLAIM_FINALIZER);
  releaseAllocation(ctx, claimName);
}
