// What a reconcile of a Metal3Data works on. It reads, all from the informers (the watches that wake it need them
// cached anyway, and the informers serve this process's own writes): the object, its Cluster, the
// association chain of D-9 and the IPAM objects. Only the rendered Secrets are read live (they are
// not cached: a controller has no business holding every Secret of the cluster in memory, F-9; the
// rendered-Secret watch keeps the metadata of its own Secrets only, to be woken). `readScope` reads
// the object and its Cluster once and takes the guard's decision; the phases then record what they
// find in `observed` (the only mutable part) and deriveStatus turns that into the one patch.
import type { Api, Client } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  Metal3DataResource,
  type Metal3DataTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import type { IPAddress, IPClaim, IPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { labelIndexName, OWNER_UID_INDEX } from '@metal3-ts/shared/cache/indexers';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { AssociationLookups, MachineLookups } from './decisions/association.ts';
import type { IpamStores } from './phases/allocate.ts';
import type { ReleaseCandidates } from './phases/release.ts';
import { type Request, requestKey } from '@metal3-ts/shared/reconcile/reconcile';
import { clusterNameOf, type DataGuard, guard } from './guards.ts';
import type { Observations } from './observations.ts';
import type { RelatedHost, RelatedMachine, RelatedMetal3Machine } from './render/index.ts';
import { DATA_NAME_LABEL } from './names.ts';

export interface DataInformers {
  readonly datas: Informer<Metal3Data>;
  readonly templates: Informer<Metal3DataTemplate>;
  readonly claims: Informer<Metal3DataClaim>;
  /** Projected (projections.ts): what rendering and the association read. */
  readonly metal3Machines: Informer<RelatedMetal3Machine>;
  readonly machines: Informer<RelatedMachine>;
  readonly clusters: Informer<Cluster>;
  readonly hosts: Informer<RelatedHost>;
  /** Undefined when the apiserver does not serve `ipam.metal3.io` (D-3). */
  readonly ipClaims?: Informer<IPClaim> | undefined;
  readonly ipAddresses?: Informer<IPAddress> | undefined;
  readonly ipPools?: Informer<IPPool> | undefined;
  /** Undefined when the apiserver does not serve `ipam.cluster.x-k8s.io` (D-2). */
  readonly ipAddressClaims?: Informer<capi.IPAddressClaim> | undefined;
  readonly capiIPAddresses?: Informer<capi.IPAddress> | undefined;
}

/** What every reconcile of a Metal3Data reads first, once: the object and its Cluster, and the guard's decision. */
export interface DataScope {
  /** The cached object: frozen; phases work on copies. */
  readonly cached: Readonly<Metal3Data>;
  /** The Cluster its cluster-name label names, when it exists. */
  readonly cluster: Readonly<Cluster> | undefined;
  readonly decision: DataGuard;
  readonly api: Api<Metal3Data>;
  /** `Metal3Data namespace/name`: the object named in StepErrors. */
  readonly object: string;
  readonly observed: Observations;
}

/** The scope of `request`, or undefined when the Metal3Data does not exist. */
export function readScope(informers: DataInformers, client: Client, request: Request): DataScope | undefined {
  const cached = informers.datas.store.get(request);
  if (!cached) return undefined;
  const clusterName = clusterNameOf(cached);
  const cluster = clusterName ? informers.clusters.store.get({ namespace: request.namespace, name: clusterName }) : undefined;
  return {
    cached,
    cluster,
    decision: guard(cached, cluster),
    api: client.api(Metal3DataResource, request.namespace),
    object: `Metal3Data ${requestKey(request)}`,
    observed: { data: cached, errors: [] },
  };
}

export function associationLookups(informers: DataInformers): AssociationLookups {
  return {
    template: (key) => informers.templates.store.get(key),
    claim: (key) => informers.claims.store.get(key),
    metal3Machine: (key) => informers.metal3Machines.store.get(key),
  };
}

export function machineLookups(informers: DataInformers): MachineLookups {
  return {
    machine: (key) => informers.machines.store.get(key),
    host: (key) => informers.hosts.store.get(key),
  };
}

export function ipamStores(informers: DataInformers): IpamStores {
  return {
    ipClaims: informers.ipClaims?.store,
    ipAddresses: informers.ipAddresses?.store,
    ipAddressClaims: informers.ipAddressClaims?.store,
    capiIPAddresses: informers.capiIPAddresses?.store,
    ipPools: informers.ipPools?.store,
  };
}

/** The IP claims that may be this Metal3Data's: owned by its uid, or (D-17) labelled with its name. */
export function releaseCandidates(informers: DataInformers, data: Readonly<Metal3Data>): ReleaseCandidates {
  const uid = data.metadata.uid ?? '';
  const name = data.metadata.name ?? '';
  return {
    ipClaims: informers.ipClaims
      ? [...informers.ipClaims.store.byIndex(OWNER_UID_INDEX, uid), ...informers.ipClaims.store.byIndex(labelIndexName(DATA_NAME_LABEL), name)]
      : [],
    ipAddressClaims: informers.ipAddressClaims ? informers.ipAddressClaims.store.byIndex(OWNER_UID_INDEX, uid) : [],
  };
}
