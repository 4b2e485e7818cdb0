// What one pass over a pool's claims shares: the pool being reconciled and its inventory, which each
// allocation or release updates at once so the next claim of the same pass sees it.
import type { Client, OwnerReference } from '@metal3-ts/generated';
import type { IPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { canonicalIP } from './address.ts';
import { allocate, type AllocationOutcome, type PoolInventory } from './allocation.ts';

export interface PoolContext {
  readonly client: Client;
  /** The pool as this reconcile sees it (read from the cache, with its uid). */
  readonly pool: Readonly<IPPool>;
  readonly inventory: PoolInventory;
}

export const poolName = (ctx: PoolContext): string => ctx.pool.metadata.name ?? '';
export const poolNamespace = (ctx: PoolContext): string => ctx.pool.metadata.namespace ?? '';

/** Allocates for `claimName` against the current inventory (nothing is recorded yet). */
export function allocateFor(ctx: PoolContext, claimName: string): AllocationOutcome {
  return allocate(ctx.pool.spec ?? { namePrefix: poolName(ctx) }, claimName, ctx.inventory.inUse);
}

export function recordAllocation(ctx: PoolContext, claimName: string, address: string): void {
  ctx.inventory.indexes[claimName] = address;
  ctx.inventory.inUse.add(canonicalIP(address) ?? address);
}

/** Forgets a claim's allocation; its address stays in use when the pool pre-allocates it. */
export function releaseAllocation(ctx: PoolContext, claimName: string): void {
  const address = ctx.inventory.indexes[claimName];
  if (address === undefined) return;
  delete ctx.inventory.indexes[claimName];
  const preAllocated = Object.values(ctx.pool.spec?.preAllocations ?? {}).some((a) => (canonicalIP(a) ?? a) === (canonicalIP(address) ?? address));
  if (!preAllocated || ctx.pool.metadata.deletionTimestamp) ctx.inventory.inUse.delete(canonicalIP(address) ?? address);
}

/** The owner references every address gets: the pool and the claim, neither as controller (as IPAM). */
export function addressOwners(ctx: PoolContext, claim: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }): OwnerReference[] {
  return [
    { apiVersion: ctx.pool.apiVersion, kind: ctx.pool.kind, name: poolName(ctx), uid: ctx.pool.metadata.uid ?? '' },
    { apiVersion: claim.apiVersion, kind: claim.kind, name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '' },
  ];
}
