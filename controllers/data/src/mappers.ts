// Which Metal3Data an event of another kind concerns (research D-1…D-3, and beyond upstream: every
// input of the rendering wakes the Metal3Data waiting for it, where upstream polls every 30 s).
// The chains follow the association of D-9: Metal3Data → claim → Metal3Machine → Machine and host.
// Inputs other than claims and IP objects only wake Metal3Data that still wait to be rendered: a
// rendered Metal3Data never changes (DR-21); its rendered Secrets are watched apart
// (rendered-secret-watch.ts), so one that disappears is rendered again.
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import type { IPAddress, IPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { IndexFn, Store } from '@metal3-ts/shared/cache/types';
import type { MapFn } from '@metal3-ts/shared/controller/handlers';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { hostKey, templateKey } from './decisions/association.ts';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from './names.ts';
import type { RelatedHost, RelatedMachine, RelatedMetal3Machine } from './render/index.ts';

/** Metal3Data by `<namespace>/<template name>` (template namespace defaulted to its own). */
export const DATA_BY_TEMPLATE_INDEX = 'metal3data:by-template';
/** Metal3Data by `<namespace>/<claim name>`. */
export const DATA_BY_CLAIM_INDEX = 'metal3data:by-claim';
/** Metal3Data by `<namespace>/<cluster-name label>`. */
export const DATA_BY_CLUSTER_INDEX = 'metal3data:by-cluster';
/** Metal3Data by `<namespace>/<Secret name>` of the Secrets its spec names (issue 21 point 0). */
export const DATA_BY_SECRET_INDEX = 'metal3data:by-secret';
/** Metal3DataClaims by `<namespace>/<owner Metal3Machine name>`. */
export const CLAIM_BY_METAL3MACHINE_INDEX = 'metal3data:claim-by-metal3machine';
/** Metal3Machines by `<namespace>/<host name>` (the `metal3.io/BareMetalHost` annotation, M-40). */
export const METAL3MACHINE_BY_HOST_INDEX = 'metal3data:metal3machine-by-host';
/** Metal3Machines by `<namespace>/<owner Machine name>`. */
export const METAL3MACHINE_BY_MACHINE_INDEX = 'metal3data:metal3machine-by-machine';

const key = (namespace: string | undefined, name: string | undefined): string[] => (name ? [`${namespace ?? ''}/${name}`] : []);

export const dataByTemplate: IndexFn<Metal3Data> = (data) => {
  const ref = templateKey(data);
  return ref ? key(ref.namespace, ref.name) : [];
};
export const dataByClaim: IndexFn<Metal3Data> = (data) => key(data.metadata.namespace, data.spec?.claim?.name);
export const dataByCluster: IndexFn<Metal3Data> = (data) => key(data.metadata.namespace, data.metadata.labels?.[CLUSTER_NAME_LABEL]);
export const dataBySecret: IndexFn<Metal3Data> = (data) => [
  ...key(data.metadata.namespace, data.spec?.metaData?.name),
  ...key(data.metadata.namespace, data.spec?.networkData?.name),
];
export const claimByMetal3Machine: IndexFn<Metal3DataClaim> = (claim) =>
  key(claim.metadata.namespace, getOwnerByKind(claim, INFRASTRUCTURE_GROUP, 'Metal3Machine')?.name);
export const metal3MachineByHost: IndexFn<RelatedMetal3Machine> = (m3m) => {
  const host = hostKey(m3m);
  return host ? key(host.namespace, host.name) : [];
};
export const metal3MachineByMachine: IndexFn<RelatedMetal3Machine> = (m3m) =>
  key(m3m.metadata.namespace, getOwnerByKind(m3m, CLUSTER_API_GROUP, 'Machine')?.name);

/** Still to be rendered: not ready and not being deleted. */
export const awaitsRendering = (data: Readonly<Metal3Data>): boolean => data.status?.ready !== true && !data.metadata.deletionTimestamp;

const requestFor = (obj: Readonly<KubeObject>): Request => ({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });

export interface MapperStores {
  readonly datas: Store<Metal3Data>;
  readonly claims: Store<Metal3DataClaim>;
  readonly metal3Machines: Store<RelatedMetal3Machine>;
  readonly ipClaims?: Store<IPClaim> | undefined;
  readonly ipAddressClaims?: Store<capi.IPAddressClaim> | undefined;
}

function datasOfClaims(stores: MapperStores, claims: readonly Readonly<Metal3DataClaim>[]): Request[] {
  return claims.flatMap((claim) =>
    stores.datas.byIndex(DATA_BY_CLAIM_INDEX, `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`).filter(awaitsRendering).map(requestFor)
  );
}

function datasOfMetal3Machines(stores: MapperStores, machines: readonly Readonly<RelatedMetal3Machine>[]): Request[] {
  return machines.flatMap((m3m) =>
    datasOfClaims(stores, stores.claims.byIndex(CLAIM_BY_METAL3MACHINE_INDEX, `${m3m.metadata.namespace ?? ''}/${m3m.metadata.name ?? ''}`))
  );
}

/** A template wakes the Metal3Data rendered from it (it may have appeared, or its clusterName changed). */
export function templateToDatas(stores: MapperStores): MapFn<Metal3DataTemplate> {
  return (template) =>
    stores.datas.byIndex(DATA_BY_TEMPLATE_INDEX, `${template.metadata.namespace ?? ''}/${template.metadata.name ?? ''}`).filter(awaitsRendering).map(
      requestFor,
    );
}

/**
 * Issue 21 point 4: an IP pool that appears (or goes) wakes the Metal3Data of its namespace still to
 * be rendered; one waiting for it reports the pool missing until then. Pool updates (the IPAM's
 * allocation bookkeeping) are filtered out by the watch.
 */
export function poolToDatas(stores: MapperStores): MapFn<KubeObject> {
  return (pool) => stores.datas.list(pool.metadata.namespace ?? '').filter(awaitsRendering).map(requestFor);
}

/** A claim wakes its Metal3Data whatever its state: a deletion waits for the claim to be gone (D-7). */
export function claimToDatas(stores: MapperStores): MapFn<Metal3DataClaim> {
  return (claim) => stores.datas.byIndex(DATA_BY_CLAIM_INDEX, `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`).map(requestFor);
}

/** A Metal3Machine (host annotation, owner Machine, dataTemplate, labels) wakes its claims' Metal3Data. */
export function metal3MachineToDatas(stores: MapperStores): MapFn<RelatedMetal3Machine> {
  return (m3m) => datasOfMetal3Machines(stores, [m3m]);
}

/** A Machine wakes the Metal3Data of the Metal3Machines it owns. */
export function machineToDatas(stores: MapperStores): MapFn<RelatedMachine> {
  return (machine) =>
    datasOfMetal3Machines(
      stores,
      stores.metal3Machines.byIndex(METAL3MACHINE_BY_MACHINE_INDEX, `${machine.metadata.namespace ?? ''}/${machine.metadata.name ?? ''}`),
    );
}

/** A BareMetalHost (it appeared, its NICs were inspected, its labels changed) wakes its machine's Metal3Data. */
export function hostToDatas(stores: MapperStores): MapFn<RelatedHost> {
  return (host) =>
    datasOfMetal3Machines(stores, stores.metal3Machines.byIndex(METAL3MACHINE_BY_HOST_INDEX, `${host.metadata.namespace ?? ''}/${host.metadata.name ?? ''}`));
}

/** A Cluster that appears or is unpaused wakes every Metal3Data labelled with its name. */
export function clusterToDatas(stores: MapperStores): MapFn<Cluster> {
  return (cluster) => stores.datas.byIndex(DATA_BY_CLUSTER_INDEX, `${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`).map(requestFor);
}

/** The Metal3Data controlling `claim` (D-2/D-3: ownerReference of kind Metal3Data). */
function ownerData(claim: Readonly<KubeObject> | undefined): Request[] {
  const owner = claim ? getOwnerByKind(claim, INFRASTRUCTURE_GROUP, 'Metal3Data') : undefined;
  return owner && claim ? [{ namespace: claim.metadata.namespace ?? '', name: owner.name }] : [];
}

/** A Metal3 IPAddress wakes the Metal3Data owning the claim it answers. */
export function ipAddressToDatas(stores: MapperStores): MapFn<IPAddress> {
  return (address) => {
    const claim = address.spec?.claim?.name;
    return claim ? ownerData(stores.ipClaims?.get({ namespace: address.metadata.namespace ?? '', name: claim })) : [];
  };
}

/** A Cluster API IPAddress wakes the Metal3Data owning the claim it answers. */
export function capiIPAddressToDatas(stores: MapperStores): MapFn<capi.IPAddress> {
  return (address) => {
    const claim = address.spec?.claimRef?.name;
    return claim ? ownerData(stores.ipAddressClaims?.get({ namespace: address.metadata.namespace ?? '', name: claim })) : [];
  };
}

/** D-2/D-3: an IP claim wakes every Metal3Data named in its ownerReferences (ours, or a former one's). */
export const ipClaimToDatas: MapFn<KubeObject> = (claim) =>
  (claim.metadata.ownerReferences ?? [])
    .filter((ref) => ref.kind === 'Metal3Data' && ref.apiVersion.startsWith(`${INFRASTRUCTURE_GROUP}/`))
    .map((ref) => ({ namespace: claim.metadata.namespace ?? '', name: ref.name }));
