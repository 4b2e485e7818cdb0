// The IP claims of a Metal3Data, one per pool its template references (research D-14…D-19): what to
// look for, what to create, and what an existing claim says. Pure; phases/allocate.ts does the I/O.
//
// Changed from upstream (docs/compatibility.md):
// - E-17: with BMH-name-based preallocation the claim created as `<host>-<pool>` is used at once,
//   instead of being looked up again as `<data>-<pool>`, missed, and failing the render;
// - D-17: the data-name and pool-name labels go on the preallocated IPClaim only, not onto the
//   Metal3Data itself (where a multi-pool template would leave just the last pool's name);
// - D-19: Cluster API claims follow the same ownership rule as Metal3 ones (a claim another
//   Metal3Data owns is waited out, not used), and a claim whose Ready condition reports a failed
//   allocation is a failure with the pool's message instead of an endless wait.
import type { IPAddress as CapiIPAddress, IPAddressClaim } from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { newIPAddressClaim } from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import type { IPAddress, IPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import { MAX_DNS_NAME_LENGTH } from '@metal3-ts/shared/meta/dns';
import { isMetal3IPPool, type PoolAllocation, type PoolRef } from '../render/index.ts';
import { DATA_NAME_LABEL, ipClaimName, METAL3_DATA_FINALIZER, METAL3_IPAM_GROUP, METAL3_IPAM_POOL_KIND, POOL_NAME_LABEL } from '../names.ts';

export interface ClaimNames {
  /** Names to look for, in order; the first existing claim is used. */
  readonly lookup: readonly string[];
  /** The name a new claim gets. */
  readonly create: string;
}

/**
 * D-16, D-17, D-18: Metal3 claims are looked up as `<data>-<pool>`, then `<host>-<pool>` (whatever
 * the preallocation flag says) and created under the first name, or the second with preallocation;
 * Cluster API claims are always `<data>-<pool>`.
 */
export function claimNames(dataName: string, pool: PoolRef, hostName: string, preallocation: boolean): ClaimNames {
  const own = ipClaimName(dataName, pool.name);
  if (!isMetal3IPPool(pool)) return { lookup: [own], create: own };
  const byHost = ipClaimName(hostName, pool.name);
  return { lookup: own === byHost ? [own] : [own, byHost], create: preallocation ? byHost : own };
}

/**
 * Issue 21 point 4: why the claim a pool needs cannot be created, if its name (derived from the
 * Metal3Data or host name and the pool name) is too long for any object. Admission cannot see this
 * in advance: the pool may come from an annotation, the host only at render time.
 */
export function claimNameProblem(names: ClaimNames, pool: PoolRef): string | undefined {
  if (names.create.length <= MAX_DNS_NAME_LENGTH) return undefined;
  return `IP Allocation for ${pool.name} failed : the claim name "${
    names.create.slice(0, 40)
  }…" would be ${names.create.length} characters, more than ${MAX_DNS_NAME_LENGTH}; shorten the Metal3DataTemplate or pool name`;
}

function controllerRef(data: Readonly<Metal3Data>): OwnerReference {
  return { apiVersion: data.apiVersion, kind: data.kind, name: data.metadata.name ?? '', uid: data.metadata.uid ?? '', controller: true };
}

/** D-16/D-17: a Metal3 IPClaim for `pool`, owned by the Metal3Data and held by its finalizer. */
export function newMetal3IPClaim(data: Readonly<Metal3Data>, pool: PoolRef, name: string, preallocation: boolean): IPClaim {
  const namespace = data.metadata.namespace ?? '';
  const labels: Record<string, string> = { ...data.metadata.labels };
  if (preallocation) {
    labels[DATA_NAME_LABEL] = data.metadata.name ?? '';
    labels[POOL_NAME_LABEL] = pool.name;
  }
  return newIPClaim({
    metadata: { name, namespace, finalizers: [METAL3_DATA_FINALIZER], labels, ownerReferences: [controllerRef(data)] },
    spec: { pool: { name: pool.name, namespace } },
  });
}

/** D-18: a Cluster API IPAddressClaim for `pool`, owned by the Metal3Data and held by its finalizer. */
export function newCapiIPAddressClaim(data: Readonly<Metal3Data>, pool: PoolRef, name: string): IPAddressClaim {
  return newIPAddressClaim({
    metadata: {
      name,
      namespace: data.metadata.namespace ?? '',
      finalizers: [METAL3_DATA_FINALIZER],
      labels: { ...data.metadata.labels },
      ownerReferences: [controllerRef(data)],
    },
    spec: { poolRef: { apiGroup: pool.apiGroup || METAL3_IPAM_GROUP, kind: pool.kind || METAL3_IPAM_POOL_KIND, name: pool.name } },
  });
}

/** What one existing claim means for the Metal3Data. */
export type ClaimState =
  | { readonly kind: 'Allocated'; readonly allocation: PoolAllocation }
  | { readonly kind: 'Wait'; readonly reason: string }
  /** Owned by another (older) Metal3Data of the same name: wait until it is gone. */
  | { readonly kind: 'Foreign'; readonly reason: string; readonly releaseOurFinalizer: boolean }
  | { readonly kind: 'Failed'; readonly message: string };

/** D-19: "ours" means an ownerReference carries the Metal3Data's uid. */
export function isOwnedBy(claim: Readonly<KubeObject>, data: Readonly<Metal3Data>): boolean {
  const uid = data.metadata.uid;
  return uid !== undefined && (claim.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid);
}

function ownership(claim: Readonly<KubeObject>, data: Readonly<Metal3Data>, pool: PoolRef): ClaimState | undefined {
  if (isOwnedBy(claim, data)) return undefined;
  const deleting = claim.metadata.deletionTimestamp !== undefined;
  return {
    kind: 'Foreign',
    reason: `IP claim ${claim.metadata.name ?? ''} for pool ${pool.name} belongs to another Metal3Data${deleting ? ' and is being deleted' : ''}`,
    // A deleting claim of a former Metal3Data must not be held by our finalizer forever.
    releaseOurFinalizer: deleting && (claim.metadata.finalizers ?? []).includes(METAL3_DATA_FINALIZER),
  };
}

const waitingFor = (pool: PoolRef): ClaimState => ({ kind: 'Wait', reason: `Waiting for an IP address from pool ${pool.name}` });
const failed = (pool: PoolRef, error: string): ClaimState => ({ kind: 'Failed', message: `IP Allocation for ${pool.name} failed : ${error}` });

/** D-19 for a Metal3 IPClaim; `address` is the IPAddress its status names, if it exists. */
export function metal3ClaimState(data: Readonly<Metal3Data>, pool: PoolRef, claim: Readonly<IPClaim>, address: Readonly<IPAddress> | undefined): ClaimState {
  const foreign = ownership(claim, data, pool);
  if (foreign) return foreign;
  if (claim.status?.errorMessage) return failed(pool, claim.status.errorMessage);
  if (!claim.status?.address?.name || !address?.spec) return waitingFor(pool);
  const spec = address.spec;
  return {
    kind: 'Allocated',
    allocation: { address: spec.address, prefix: spec.prefix ?? 0, gateway: spec.gateway ?? '', dnsServers: [...(spec.dnsServers ?? [])] },
  };
}

/** Reasons Cluster API IPAM providers use on a claim's Ready condition when allocation failed. */
const FAILED_ALLOCATION_REASONS = new Set(['AllocationFailed', 'PoolExhausted']);

/** D-19 for a Cluster API IPAddressClaim; `address` is the IPAddress its addressRef names, if it exists. */
export function capiClaimState(
  data: Readonly<Metal3Data>,
  pool: PoolRef,
  claim: Readonly<IPAddressClaim>,
  address: Readonly<CapiIPAddress> | undefined,
): ClaimState {
  const foreign = ownership(claim, data, pool);
  if (foreign) return foreign;
  if (claim.metadata.deletionTimestamp) return waitingFor(pool);
  const ready = claim.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'False' && FAILED_ALLOCATION_REASONS.has(ready.reason ?? '')) return failed(pool, ready.message || ready.reason || 'allocation failed');
  // E-46: an address without a prefix is waited out instead of crashing.
  if (!claim.status?.addressRef?.name || !address?.spec || typeof address.spec.prefix !== 'number') return waitingFor(pool);
  return { kind: 'Allocated', allocation: { address: address.spec.address, prefix: address.spec.prefix, gateway: address.spec.gateway ?? '', dnsServers: [] } };
}
