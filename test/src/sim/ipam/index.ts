// IPAM simulator: plays the Metal3 IP address manager (`ipam.metal3.io/v1alpha1`, IPAM v1.12) on the
// real apiserver, for the contract CAPM3's Metal3Data controller relies on (research D-14…D-19).
//
// Covered:
// - IPClaim (`spec.pool` in the claim's namespace) → an IPAddress named `<namePrefix>-<address with
//   . and : as ->`, with the claim's labels, finalizer `ipaddress.ipam.metal3.io`, owner references
//   to the pool and the claim, and spec address/prefix/gateway/dnsServers/pool/claim; the claim gets
//   finalizer `ipclaim.ipam.metal3.io` and `status.address {name, namespace}`.
// - Allocation as the real manager does it: ranges in order, `start`[-`end`] or `subnet` (network+1
//   onwards), lowest free address first, `preAllocations` (claim name → address) honoured, the
//   range's prefix/gateway/dnsServers overriding the pool's.
// - Failures in the claim's `status.errorMessage` with the real texts (`Exhausted IP Pools`,
//   `Pre-allocated IP out of bond`), followed by the problems of invalid ranges (start after end,
//   start or end outside the subnet, …) that the real manager does not name. As in the real manager a
//   failed claim keeps its error until it is deleted, and nothing crash-loops.
// - Release: a deleted claim held only by our finalizer has its IPAddress deleted (finalizer first)
//   and its finalizer removed; other finalizers (CAPM3's) keep the address until they are gone.
// - The IPPool: finalizer `ippool.ipam.metal3.io` (removed once a deleting pool has no allocation),
//   `status.indexes` (claim → address, rebuilt from the IPAddress objects), `status.lastUpdated`,
//   `spec.clusterName` → cluster-name and provider labels and an owner reference to the Cluster,
//   paused Cluster or `cluster.x-k8s.io/paused` pool → no work, look again later.
// - Cluster API IPAddressClaim (`ipam.cluster.x-k8s.io/v1beta1`) whose `spec.poolRef` names a Metal3
//   IPPool: a CAPI IPAddress (address, prefix, gateway, poolRef, claimRef), `status.addressRef`,
//   condition Ready (False with reason PoolExhausted / AllocationFailed on failure), finalizers
//   `ipam.metal3.io/ipaddressclaim` and `ipam.metal3.io/ipaddress`.
//
// Not covered: the IPAM webhooks (namePrefix immutability etc.), the `ipAddress` annotation asking
// for a specific address and the random allocation strategy of newer IPAM releases, pool capacity
// counters, cross-namespace pool references (ignored, as by the real manager). Deliberate
// differences: CAPI claims and addresses are matched on poolRef group and kind as well as name (the
// real manager looks at the name only), and the simulator also wakes a pool when its addresses or its
// Cluster change (the real one waits for a claim event or its 30 s requeue).
import type { KubeObject } from '@metal3-ts/generated';
import { type Cluster, ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { type IPAddress, IPAddressResource, type IPClaim, IPClaimResource, IPPoolResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { refersToMetal3Pool } from './ipaddressclaim.ts';
import { poolReconciler } from './pool-reconciler.ts';

export { addressName, allocate, EXHAUSTED_MESSAGE, PREALLOCATED_OUT_OF_BOUNDS_MESSAGE, validatePool } from './allocation.ts';
export * from './names.ts';

export interface IpamSimulatorOptions {
  /** Wait before a paused pool is looked at again; default 30 s, as the real manager. */
  readonly pausedRequeueMs?: number;
  readonly maxConcurrentReconciles?: number;
}

const inNamespace = (obj: Readonly<KubeObject>, name: string | undefined): Request[] =>
  name && obj.metadata.namespace ? [{ namespace: obj.metadata.namespace, name }] : [];

/** An IPClaim wakes its pool when the pool is in the claim's namespace (the only kind IPAM serves). */
export function ipClaimToPool(claim: Readonly<IPClaim>): Request[] {
  const pool = claim.spec?.pool;
  if (!pool?.name || (pool.namespace && pool.namespace !== claim.metadata.namespace)) return [];
  return inNamespace(claim, pool.name);
}

export function ipAddressClaimToPool(claim: Readonly<capi.IPAddressClaim>): Request[] {
  return refersToMetal3Pool(claim.spec?.poolRef) ? inNamespace(claim, claim.spec?.poolRef.name) : [];
}

/** The IPAM simulator's controllers (one: IPPool, woken by its claims, addresses and Cluster). */
export function ipamSimulator(deps: SimulatorDeps, options: IpamSimulatorOptions = {}): Runnable[] {
  const pools = deps.informers.informerFor(IPPoolResource);
  const clusterToPools = (cluster: Readonly<Cluster>): Request[] =>
    pools.store
      .list(cluster.metadata.namespace)
      .filter((p) => p.spec?.clusterName === cluster.metadata.name)
      .flatMap((p) => inNamespace(p, p.metadata.name));
  const controller = controllerFor('sim-ipam-ippool', IPPoolResource, deps)
    .watches(IPClaimResource, ipClaimToPool)
    .watches(capi.IPAddressClaimResource, ipAddressClaimToPool)
    .watches(IPAddressResource, (a: Readonly<IPAddress>) => inNamespace(a, a.spec?.pool.name))
    .watches(capi.IPAddressResource, (a: Readonly<capi.IPAddress>) => (refersToMetal3Pool(a.spec?.poolRef) ? inNamespace(a, a.spec?.poolRef.name) : []))
    .watches(ClusterResource, clusterToPools)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build(poolReconciler({ client: deps.client, informers: deps.informers, pausedRequeueMs: options.pausedRequeueMs ?? 30_000 }));
  return [controller];
}
