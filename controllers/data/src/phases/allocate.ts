// Phase `ip claims` (D-9 steps 8–9, D-14, DR-20): the Metal3Machine's owner Machine and host, the
// pools the template needs for them, and one IP claim per pool, created when missing, then each
// claim's address read from the informers. The reconcile is woken by the claims' and addresses' own events (mappers.ts), so a
// claim still waiting for its pool is a plain wait, never a poll; a claim waiting for a Metal3 pool
// that does not exist is reported (issue 21 point 4) and woken by the pool's creation.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { isAlreadyExists } from '@metal3-ts/generated/runtime/errors';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { type IPAddress, type IPClaim, IPClaimResource, type IPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { isMetal3IPPool, type PoolAllocation, type PoolRef, type RelatedObjects } from '../render/index.ts';
import { METAL3_DATA_FINALIZER } from '../names.ts';
import { type Finding, found, invalid, wait } from '../findings.ts';
import { findMachineAndHost } from '../decisions/association.ts';
import { referencedPools } from '../decisions/secret-contents.ts';
import { type PhaseContext, type PhaseResult, recorded } from '../phase.ts';
import { type DataScope, ipamStores, machineLookups } from '../scope.ts';
import { outcomeOf } from '../status.ts';
import {
  capiClaimState,
  claimNameProblem,
  type ClaimNames,
  claimNames,
  type ClaimState,
  metal3ClaimState,
  newCapiIPAddressClaim,
  newMetal3IPClaim,
} from '../decisions/ip-claims.ts';

/** The IPAM kinds the apiserver serves (research D-2/D-3: probed at start-up); absent ones are undefined. */
export interface IpamStores {
  readonly ipClaims?: Store<IPClaim> | undefined;
  readonly ipAddresses?: Store<IPAddress> | undefined;
  readonly ipAddressClaims?: Store<capi.IPAddressClaim> | undefined;
  readonly capiIPAddresses?: Store<capi.IPAddress> | undefined;
  /** Metal3 IPPools, to name a missing one (Cluster API pools are of any kind: not checked). */
  readonly ipPools?: Store<IPPool> | undefined;
}

export interface AllocateDeps {
  readonly client: Client;
  readonly stores: IpamStores;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation: boolean;
}

/** Pool name → what its claim yielded: the renderer's input (DR-20 keys allocations by name). */
export type Allocations = ReadonlyMap<string, PoolAllocation>;

type Claimed = { readonly pool: PoolRef; readonly state: ClaimState };

/**
 * Writes: IPClaims / IPAddressClaims (created), our finalizer on a former Metal3Data's claim
 * (removed). Records `related` (copies: the renderer gets its own, cached objects are frozen) and
 * `allocations`; ends the list while something is missing or an allocation cannot work.
 */
export async function allocate(ctx: PhaseContext, scope: DataScope): Promise<PhaseResult> {
  const { template, metal3Machine } = recorded(scope.observed.association, 'the association');
  const owners = findMachineAndHost(metal3Machine, machineLookups(ctx.informers));
  if (owners.kind !== 'Found') return outcomeOf(owners);
  const related = structuredClone({ metal3Machine, machine: owners.value.machine, host: owners.value.host }) as RelatedObjects;
  const pools = referencedPools(template, related);
  if (pools.kind !== 'Found') return outcomeOf(pools);
  const deps = { client: ctx.client, stores: ipamStores(ctx.informers), preallocation: ctx.preallocation };
  const allocations = await allocateAddresses(deps, scope.observed.data, pools.value, owners.value.host.metadata.name ?? '');
  if (allocations.kind !== 'Found') return outcomeOf(allocations);
  scope.observed.related = related;
  scope.observed.allocations = allocations.value;
  return undefined;
}

/**
 * Ensures a claim for every pool and reads their addresses. Found: every pool has an address. Wait:
 * some pool has not answered yet (or a former Metal3Data's claim is still in the way). Invalid: a pool
 * reported a failed allocation, the claim's kind is not served, or its name cannot fit (issue 21).
 */
export async function allocateAddresses(
  deps: AllocateDeps,
  data: Readonly<Metal3Data>,
  pools: readonly PoolRef[],
  hostName: string,
): Promise<Finding<Allocations>> {
  // Each pool's claim names once: checked for length, then looked up or created.
  const named = pools.map((pool) => ({ pool, names: claimNames(data.metadata.name ?? '', pool, hostName, deps.preallocation) }));
  for (const { pool, names } of named) {
    const problem = claimNameProblem(names, pool);
    if (problem) return invalid('IPAllocationFailed', problem);
  }
  const claimed: Claimed[] = [];
  for (const { pool, names } of named) {
    const state = isMetal3IPPool(pool) ? await claimFromMetal3Pool(deps, data, pool, names) : await claimFromCapiPool(deps, data, pool, names);
    claimed.push({ pool, state });
  }
  const failure = claimed.find((c) => c.state.kind === 'Failed');
  if (failure?.state.kind === 'Failed') return invalid('IPAllocationFailed', failure.state.message);
  const missing = claimed.find((c) => c.state.kind === 'Wait' && poolMissing(deps.stores, data, c.pool));
  if (missing) return invalid('IPPoolNotFound', missingPoolMessage(data, missing.pool));
  const waiting = claimed.flatMap((c) => (c.state.kind === 'Wait' || c.state.kind === 'Foreign' ? [c.state.reason] : []));
  if (waiting.length > 0) return wait(waiting.join('; '));
  const allocations = new Map<string, PoolAllocation>();
  for (const c of claimed) if (c.state.kind === 'Allocated') allocations.set(c.pool.name, c.state.allocation);
  return found(allocations);
}

/** Issue 21 point 4: a Metal3 pool absent from the cache, whose claim can only wait (upstream says nothing). */
function poolMissing(stores: IpamStores, data: Readonly<Metal3Data>, pool: PoolRef): boolean {
  return isMetal3IPPool(pool) && stores.ipPools !== undefined && !stores.ipPools.get({ namespace: data.metadata.namespace ?? '', name: pool.name });
}

const missingPoolMessage = (data: Readonly<Metal3Data>, pool: PoolRef): string =>
  `IP Allocation for ${pool.name} waits: IPPool ${
    data.metadata.namespace ?? ''
  }/${pool.name} does not exist; its IP claim is kept and served once the pool is created`;

const notServed = (kind: string, pool: PoolRef): ClaimState => ({
  kind: 'Failed',
  message: `IP Allocation for ${pool.name} failed : the apiserver does not serve ${kind} (is the IPAM CRD installed?)`,
});

async function claimFromMetal3Pool(deps: AllocateDeps, data: Readonly<Metal3Data>, pool: PoolRef, names: ClaimNames): Promise<ClaimState> {
  const { ipClaims, ipAddresses } = deps.stores;
  if (!ipClaims || !ipAddresses) return notServed('ipam.metal3.io/v1alpha1 IPClaim', pool);
  const namespace = data.metadata.namespace ?? '';
  const claim = firstExisting(ipClaims, namespace, names.lookup) ??
    (await createOrRead(deps.client, IPClaimResource, namespace, newMetal3IPClaim(data, pool, names.create, deps.preallocation)));
  const addressName = claim.status?.address?.name;
  const address = addressName ? ipAddresses.get({ namespace, name: addressName }) : undefined;
  const state = metal3ClaimState(data, pool, claim, address);
  if (state.kind === 'Foreign' && state.releaseOurFinalizer) {
    await removeFinalizerGuarded(deps.client.api(IPClaimResource, namespace), structuredClone(claim) as IPClaim, METAL3_DATA_FINALIZER);
  }
  return state;
}

async function claimFromCapiPool(deps: AllocateDeps, data: Readonly<Metal3Data>, pool: PoolRef, names: ClaimNames): Promise<ClaimState> {
  const { ipAddressClaims, capiIPAddresses } = deps.stores;
  if (!ipAddressClaims || !capiIPAddresses) return notServed('ipam.cluster.x-k8s.io/v1beta1 IPAddressClaim', pool);
  const namespace = data.metadata.namespace ?? '';
  const claim = firstExisting(ipAddressClaims, namespace, names.lookup) ??
    (await createOrRead(deps.client, capi.IPAddressClaimResource, namespace, newCapiIPAddressClaim(data, pool, names.create)));
  const addressName = claim.status?.addressRef?.name;
  const address = addressName ? capiIPAddresses.get({ namespace, name: addressName }) : undefined;
  const state = capiClaimState(data, pool, claim, address);
  if (state.kind === 'Foreign' && state.releaseOurFinalizer) {
    await removeFinalizerGuarded(deps.client.api(capi.IPAddressClaimResource, namespace), structuredClone(claim) as capi.IPAddressClaim, METAL3_DATA_FINALIZER);
  }
  return state;
}

function firstExisting<T extends KubeObject>(store: Store<T>, namespace: string, names: readonly string[]): Readonly<T> | undefined {
  for (const name of names) {
    const claim = store.get({ namespace, name });
    if (claim) return claim;
  }
  return undefined;
}

/** Creates the claim; one that appeared meanwhile (not yet in the cache) is read instead (D-16: tolerated). */
async function createOrRead<T extends KubeObject>(client: Client, descriptor: ResourceDescriptor<T>, namespace: string, claim: T): Promise<T> {
  const api = client.api(descriptor, namespace);
  try {
    return await api.create(claim);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    return api.get(claim.metadata.name ?? '');
  }
}
