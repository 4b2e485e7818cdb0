// The IPPool reconcile: like the real manager, one pass over the pool serves every claim that names it
// (Metal3 IPClaims, then Cluster API IPAddressClaims), so two claims of one pool are never allocated
// concurrently. The pool's `status.indexes` is rebuilt from the IPAddress objects, which are the
// record of what is taken.
import type { Client } from '@metal3-ts/generated';
import { type Cluster, ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { type IPAddress, IPAddressResource, type IPClaim, IPClaimResource, type IPPool, IPPoolResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { InformerSource, Store } from '@metal3-ts/shared/cache/types';
import { conditionTimestamp } from '@metal3-ts/shared/conditions/types';
import { addFinalizer, removeFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { setOwnerReference } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { poolInventory, type RecordedAddress } from './allocation.ts';
import { ipAddressClaimNeedsWork, reconcileIPAddressClaim, refersToMetal3Pool } from './ipaddressclaim.ts';
import { ipClaimNeedsWork, reconcileIPClaim } from './ipclaim.ts';
import { CLUSTER_NAME_LABEL, IPPOOL_FINALIZER, PROVIDER_NAME, PROVIDER_NAME_LABEL } from './names.ts';
import type { PoolContext } from './pool-context.ts';

export interface PoolReconcilerDeps {
  readonly client: Client;
  readonly informers: InformerSource;
  /** How long a paused pool (or a pool of a paused Cluster) waits before looking again. */
  readonly pausedRequeueMs: number;
}

/** One or more claims of a pool failed for a reason worth retrying (an API error). */
export class PoolClaimsError extends AggregateError {
  override name = 'PoolClaimsError';
}

interface Stores {
  readonly pools: Store<IPPool>;
  readonly clusters: Store<Cluster>;
  readonly claims: Store<IPClaim>;
  readonly addresses: Store<IPAddress>;
  readonly capiClaims: Store<capi.IPAddressClaim>;
  readonly capiAddresses: Store<capi.IPAddress>;
}

export function poolReconciler(deps: PoolReconcilerDeps): (request: Request) => Promise<Result> {
  const { informers } = deps;
  const stores: Stores = {
    pools: informers.informerFor(IPPoolResource).store,
    clusters: informers.informerFor(ClusterResource).store,
    claims: informers.informerFor(IPClaimResource).store,
    addresses: informers.informerFor(IPAddressResource).store,
    capiClaims: informers.informerFor(capi.IPAddressClaimResource).store,
    capiAddresses: informers.informerFor(capi.IPAddressResource).store,
  };
  return (request) => reconcilePool(deps, stores, request);
}

/** Every address object of either group that records an allocation from this pool. */
function recordedAddresses(stores: Stores, namespace: string, name: string): RecordedAddress[] {
  const metal3 = stores.addresses
    .list(namespace)
    .filter((a) => a.spec?.pool.name === name)
    .map((a) => ({ claimName: a.spec?.claim.name ?? '', address: a.spec?.address ?? '' }));
  const clusterApi = stores.capiAddresses
    .list(namespace)
    .filter((a) => refersToMetal3Pool(a.spec?.poolRef, name))
    .map((a) => ({ claimName: a.spec?.claimRef.name ?? '', address: a.spec?.address ?? '' }));
  return [...metal3, ...clusterApi];
}

function sameIndexes(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean {
  const left = Object.entries(a ?? {});
  return left.length === Object.keys(b).length && left.every(([k, v]) => b[k] === v);
}

function writeIndexes(pool: IPPool, indexes: Readonly<Record<string, string>>): void {
  const status = (pool.status ??= {});
  status.lastUpdated ??= pool.metadata.creationTimestamp ?? conditionTimestamp();
  if (sameIndexes(status.indexes, indexes)) return;
  status.indexes = { ...indexes };
  status.lastUpdated = conditionTimestamp();
}

async function reconcilePool(deps: PoolReconcilerDeps, stores: Stores, request: Request): Promise<Result> {
  const cached = stores.pools.get(request);
  if (!cached) return {};
  const namespace = cached.metadata.namespace ?? '';
  const name = cached.metadata.name ?? '';
  const pool = structuredClone(cached) as IPPool;
  const helper = new PatchHelper(pool, deps.client.api(IPPoolResource, namespace));
  const deleting = pool.metadata.deletionTimestamp !== undefined;

  const clusterName = pool.spec?.clusterName;
  if (clusterName) {
    pool.metadata.labels = { ...pool.metadata.labels, [CLUSTER_NAME_LABEL]: clusterName, [PROVIDER_NAME_LABEL]: PROVIDER_NAME };
    const cluster = stores.clusters.get({ namespace, name: clusterName });
    // Like the real manager: a pool of a Cluster that does not exist (yet) waits for the next event.
    if (!cluster && !deleting) {
      await helper.patch(pool);
      return {};
    }
    if (cluster) {
      setOwnerReference(pool, cluster);
      if (isPaused(cluster, pool)) {
        await helper.patch(pool);
        return { requeueAfterMs: deps.pausedRequeueMs };
      }
    }
  }
  if (!deleting) addFinalizer(pool, IPPOOL_FINALIZER);

  const inventory = poolInventory(pool.spec ?? { namePrefix: name }, recordedAddresses(stores, namespace, name), deleting);
  writeIndexes(pool, inventory.indexes);
  const ctx: PoolContext = { client: deps.client, pool: cached, inventory };
  const failures: unknown[] = [];
  const each = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      failures.push(error);
    }
  };
  for (const claim of stores.claims.list(namespace)) {
    if (claim.spec?.pool.name !== name || !ipClaimNeedsWork(claim)) continue;
    await each(() => reconcileIPClaim(ctx, stores.addresses, claim));
  }
  for (const claim of stores.capiClaims.list(namespace)) {
    if (!refersToMetal3Pool(claim.spec?.poolRef, name) || !ipAddressClaimNeedsWork(claim)) continue;
    await each(() => reconcileIPAddressClaim(ctx, stores.capiAddresses, claim));
  }
  writeIndexes(pool, inventory.indexes);
  // A deleting pool lets go once nothing is allocated from it any more.
  if (deleting && inventory.inUse.size === 0) removeFinalizer(pool, IPPOOL_FINALIZER);
  await helper.patch(pool);
  if (failures.length > 0) throw new PoolClaimsError(failures, `IPPool ${namespace}/${name}: ${failures.length} claim(s) failed`);
  return {};
}
