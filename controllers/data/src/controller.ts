// Wiring of the package's two controllers: Metal3Data (research D-1…D-4) and the life cycle of
// Metal3DataTemplate (DT-1…DT-3). What they reconcile, what else wakes them, which events count.
// Everything they decide lives in reconcile.ts, data-template/reconcile.ts and the pure modules those
// call; tests build them in-process with their own client and informers.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { IPAddressResource, IPClaimResource, IPPoolResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { byLabel, byOwnerUid, labelIndexName, OWNER_UID_INDEX } from '@metal3-ts/shared/cache/indexers';
import type { WatcherTuning } from '@metal3-ts/shared/cache/informer-factory';
import type { SelectedInformerSource } from '@metal3-ts/shared/cache/types';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { clusterUnpaused } from '@metal3-ts/shared/controller/predicates';
import type { ServedIpamKinds } from './ipam-kinds.ts';
import {
  capiIPAddressToDatas,
  CLAIM_BY_METAL3MACHINE_INDEX,
  claimByMetal3Machine,
  claimToDatas,
  clusterToDatas,
  DATA_BY_CLAIM_INDEX,
  DATA_BY_CLUSTER_INDEX,
  DATA_BY_SECRET_INDEX,
  DATA_BY_TEMPLATE_INDEX,
  dataByClaim,
  dataByCluster,
  dataBySecret,
  dataByTemplate,
  hostToDatas,
  ipAddressToDatas,
  ipClaimToDatas,
  machineToDatas,
  type MapperStores,
  METAL3MACHINE_BY_HOST_INDEX,
  METAL3MACHINE_BY_MACHINE_INDEX,
  metal3MachineByHost,
  metal3MachineByMachine,
  metal3MachineToDatas,
  poolToDatas,
  templateToDatas,
} from './mappers.ts';
import { DATA_CONTROLLER_NAME, DATA_NAME_LABEL, DATA_TEMPLATE_CONTROLLER_NAME } from './names.ts';
import { changedBesidesStatus, createOrDelete, eventFilter } from './predicates.ts';
import { hostProjection, machineProjection, metal3MachineProjection } from './projections.ts';
import { renderedSecretInformer, renderedSecretWatch } from './rendered-secret-watch.ts';
import { SecretConflictWatch } from './secret-conflict-watch.ts';
import { metal3DataReconciler } from './reconcile.ts';
import type { DataInformers } from './scope.ts';
import {
  CLAIM_BY_TEMPLATE_INDEX,
  claimByTemplate,
  claimToDeletingTemplate,
  clusterToTemplates,
  dataToDeletingTemplate,
  TEMPLATE_BY_CLUSTER_INDEX,
  templateByCluster,
} from './data-template/mappers.ts';
import { metal3DataTemplateReconciler } from './data-template/reconcile.ts';

export interface DataControllersConfig {
  /** `--watch-filter`: only objects labelled `cluster.x-k8s.io/watch-filter=<value>` (§0.6). */
  readonly watchFilter?: string | undefined;
  /** `--metal3data-concurrency` (default 10, as upstream). */
  readonly dataConcurrency?: number;
  /** `--metal3datatemplate-concurrency` (default 10, as upstream). */
  readonly templateConcurrency?: number;
  /** `--enableBMHNameBasedPreallocation` (D-17, default false). */
  readonly preallocation?: boolean;
  /** The IPAM kinds the apiserver serves (D-2/D-3, `probeIpamKinds`); default: both. */
  readonly ipam?: ServedIpamKinds;
  /** Safety-net wait behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number;
}

/** What the controllers need; `MainDeps` from runMain fits. */
export interface DataControllersDeps extends ControllerDeps {
  /** Preferably a WriteThroughClient over `informers`, so reconciles read their own writes. */
  readonly client: Client;
  /** InformerFactory: the rendered-Secret watch is one of its selected informers, judged by /readyz. */
  readonly informers: SelectedInformerSource & { readonly watcherTuning?: WatcherTuning };
  readonly config: DataControllersConfig;
}

/** The informers of the Metal3Data controller, with the indexes its reconcile and mappers read. */
export function dataInformers(source: SelectedInformerSource, ipam: ServedIpamKinds = { metal3: true, capi: true }): DataInformers {
  const datas = source.informerFor(Metal3DataResource);
  datas.addIndex(DATA_BY_TEMPLATE_INDEX, dataByTemplate);
  datas.addIndex(DATA_BY_CLAIM_INDEX, dataByClaim);
  datas.addIndex(DATA_BY_CLUSTER_INDEX, dataByCluster);
  datas.addIndex(DATA_BY_SECRET_INDEX, dataBySecret);
  const claims = source.informerFor(Metal3DataClaimResource);
  claims.addIndex(CLAIM_BY_METAL3MACHINE_INDEX, claimByMetal3Machine);
  const metal3Machines = source.projectedInformerFor(Metal3MachineResource, metal3MachineProjection);
  metal3Machines.addIndex(METAL3MACHINE_BY_HOST_INDEX, metal3MachineByHost);
  metal3Machines.addIndex(METAL3MACHINE_BY_MACHINE_INDEX, metal3MachineByMachine);
  const ipClaims = ipam.metal3 ? source.informerFor(IPClaimResource) : undefined;
  ipClaims?.addIndex(OWNER_UID_INDEX, byOwnerUid);
  ipClaims?.addIndex(labelIndexName(DATA_NAME_LABEL), byLabel(DATA_NAME_LABEL));
  const ipAddressClaims = ipam.capi ? source.informerFor(capi.IPAddressClaimResource) : undefined;
  ipAddressClaims?.addIndex(OWNER_UID_INDEX, byOwnerUid);
  return {
    datas,
    templates: source.informerFor(Metal3DataTemplateResource),
    claims,
    metal3Machines,
    machines: source.projectedInformerFor(MachineResource, machineProjection),
    clusters: source.informerFor(ClusterResource),
    hosts: source.projectedInformerFor(BareMetalHostResource, hostProjection),
    ipClaims,
    ipAddresses: ipam.metal3 ? source.informerFor(IPAddressResource) : undefined,
    ipPools: ipam.metal3 ? source.informerFor(IPPoolResource) : undefined,
    ipAddressClaims,
    capiIPAddresses: ipam.capi ? source.informerFor(capi.IPAddressResource) : undefined,
  };
}

/** The Metal3Data controller (D-1…D-4), woken by every input of its rendering. */
export function metal3DataController(deps: DataControllersDeps): Controller {
  const { config } = deps;
  const ipam = config.ipam ?? { metal3: true, capi: true };
  const informers = dataInformers(deps.informers, ipam);
  const stores: MapperStores = {
    datas: informers.datas.store,
    claims: informers.claims.store,
    metal3Machines: informers.metal3Machines.store,
    ipClaims: informers.ipClaims?.store,
    ipAddressClaims: informers.ipAddressClaims?.store,
  };
  const conflicts = new SecretConflictWatch(deps.client, { registry: deps.registry, tuning: deps.informers.watcherTuning });
  const reconcile = metal3DataReconciler({
    client: deps.client,
    informers,
    events: deps.events,
    preallocation: config.preallocation ?? false,
    ...(config.requeueAfterMs !== undefined ? { requeueAfterMs: config.requeueAfterMs } : {}),
    conflicts,
  });
  let builder = controllerFor(DATA_CONTROLLER_NAME, Metal3DataResource, deps)
    .withEventFilter(eventFilter(config.watchFilter ?? ''))
    .withPredicates(changedBesidesStatus)
    // Issue 21 point 4: the allocation side's ledger writes (template status) wake nobody.
    .watches(Metal3DataTemplateResource, templateToDatas(stores), { predicates: [changedBesidesStatus] })
    .watches(Metal3DataClaimResource, claimToDatas(stores))
    .watches(informers.metal3Machines, metal3MachineToDatas(stores))
    .watches(informers.machines, machineToDatas(stores))
    .watches(informers.hosts, hostToDatas(stores))
    .watches(ClusterResource, clusterToDatas(stores), { predicates: [clusterUnpaused] })
    .watchesRawSource(renderedSecretWatch(renderedSecretInformer(deps.informers), informers.datas.store))
    .watchesRawSource(conflicts);
  if (ipam.metal3) {
    builder = builder
      .watches(IPClaimResource, ipClaimToDatas)
      .watches(IPAddressResource, ipAddressToDatas(stores))
      .watches(IPPoolResource, poolToDatas(stores), { predicates: [createOrDelete] });
  }
  if (ipam.capi) builder = builder.watches(capi.IPAddressClaimResource, ipClaimToDatas).watches(capi.IPAddressResource, capiIPAddressToDatas(stores));
  return builder.withOptions({ maxConcurrentReconciles: config.dataConcurrency ?? 10 }).build(reconcile);
}

/** The Metal3DataTemplate life-cycle controller (DT-1…DT-8 without allocation). */
export function metal3DataTemplateController(deps: DataControllersDeps): Controller {
  const { config, informers: source } = deps;
  const templates = source.informerFor(Metal3DataTemplateResource);
  templates.addIndex(TEMPLATE_BY_CLUSTER_INDEX, templateByCluster);
  const claims = source.informerFor(Metal3DataClaimResource);
  claims.addIndex(CLAIM_BY_TEMPLATE_INDEX, claimByTemplate);
  const datas = source.informerFor(Metal3DataResource);
  datas.addIndex(DATA_BY_TEMPLATE_INDEX, dataByTemplate);
  const reconcile = metal3DataTemplateReconciler({
    client: deps.client,
    informers: { templates, clusters: source.informerFor(ClusterResource), claims, datas },
    ...(config.requeueAfterMs !== undefined ? { requeueAfterMs: config.requeueAfterMs } : {}),
  });
  return controllerFor(DATA_TEMPLATE_CONTROLLER_NAME, Metal3DataTemplateResource, deps)
    .withEventFilter(eventFilter(config.watchFilter ?? ''))
    .withPredicates(changedBesidesStatus)
    .watches(Metal3DataClaimResource, claimToDeletingTemplate(templates.store))
    .watches(Metal3DataResource, dataToDeletingTemplate(templates.store))
    .watches(ClusterResource, clusterToTemplates(templates.store), { predicates: [clusterUnpaused] })
    .withOptions({ maxConcurrentReconciles: config.templateConcurrency ?? 10 })
    .build(reconcile);
}

/** Both controllers, sharing `deps.informers`. */
export function dataControllers(deps: DataControllersDeps): Controller[] {
  return [metal3DataController(deps), metal3DataTemplateController(deps)];
}
