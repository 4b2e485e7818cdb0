// The KubeadmConfig reconcile: wait for the owner Machine and for the Cluster's infrastructure, render
// once, store the data Secret, report ready. Ready configs are left alone (CABPK never re-renders).
import type { Client } from '@metal3-ts/generated';
import { isAlreadyExists, isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type KubeadmConfig, KubeadmConfigResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import type { InformerSource, Store } from '@metal3-ts/shared/cache/types';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import { ConditionSeverity, READY_CONDITION } from '@metal3-ts/shared/conditions/types';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import type { Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { renderCloudConfig } from './cloud-config.ts';
import { renderIgnition } from './ignition.ts';
import { decodeSecretValue, MissingSecretError, resolveSecretReferences } from './secret-refs.ts';

export const DATA_SECRET_AVAILABLE_CONDITION = 'DataSecretAvailable';
export const WAITING_FOR_CLUSTER_INFRASTRUCTURE_REASON = 'WaitingForClusterInfrastructure';
export const DATA_SECRET_GENERATION_FAILED_REASON = 'DataSecretGenerationFailed';
/** The type CAPI gives every Secret it or its providers write for a cluster. */
export const CLUSTER_SECRET_TYPE = 'cluster.x-k8s.io/secret';
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const CAPI_GROUP = 'cluster.x-k8s.io';

export type BootstrapFormat = 'cloud-config' | 'ignition';

export interface KubeadmConfigReconcilerDeps {
  readonly client: Client;
  readonly informers: InformerSource;
  /** How long a config naming a missing Secret waits before trying again. */
  readonly missingSecretRetryMs: number;
}

interface Stores {
  readonly configs: Store<KubeadmConfig>;
  readonly machines: Store<Machine>;
  readonly clusters: Store<Cluster>;
}

/** The Machine a KubeadmConfig belongs to: the CAPI Machine among its owner references. */
export function ownerMachineName(config: Readonly<KubeadmConfig>): string | undefined {
  return getOwnerByKind(config, CAPI_GROUP, 'Machine')?.name;
}

export function kubeadmConfigReconciler(deps: KubeadmConfigReconcilerDeps): (request: Request) => Promise<Result> {
  const stores: Stores = {
    configs: deps.informers.informerFor(KubeadmConfigResource).store,
    machines: deps.informers.informerFor(MachineResource).store,
    clusters: deps.informers.informerFor(ClusterResource).store,
  };
  return (request) => reconcile(deps, stores, request);
}

const OWNED = [DATA_SECRET_AVAILABLE_CONDITION, READY_CONDITION];

async function reconcile(deps: KubeadmConfigReconcilerDeps, stores: Stores, request: Request): Promise<Result> {
  const cached = stores.configs.get(request);
  if (!cached || cached.status?.ready || cached.metadata.deletionTimestamp) return {};
  const namespace = cached.metadata.namespace ?? '';
  // No owner yet: the Machine controller sets it, and that update wakes us.
  const machineName = ownerMachineName(cached);
  const machine = machineName ? stores.machines.get({ namespace, name: machineName }) : undefined;
  if (!machine) return {};
  const cluster = stores.clusters.get({ namespace, name: machine.spec?.clusterName ?? '' });
  if (!cluster || isPaused(cluster, cached)) return {};

  const config = structuredClone(cached) as KubeadmConfig;
  const helper = new PatchHelper(config, deps.client.api(KubeadmConfigResource, namespace));
  const status = (config.status ??= {});
  const done = async (result: Result = {}): Promise<Result> => {
    setReadySummary(config, [DATA_SECRET_AVAILABLE_CONDITION]);
    if (config.metadata.generation !== undefined) status.observedGeneration = config.metadata.generation;
    await helper.patch(config, { ownedConditions: OWNED });
    return result;
  };

  // The Machine already names its data (set by hand): adopt it, as CABPK does.
  const given = machine.spec?.bootstrap?.dataSecretName;
  if (given) {
    status.ready = true;
    status.dataSecretName = given;
    markTrue(config, DATA_SECRET_AVAILABLE_CONDITION);
    return done();
  }
  if (!cluster.status?.infrastructureReady) {
    markFalse(config, DATA_SECRET_AVAILABLE_CONDITION, WAITING_FOR_CLUSTER_INFRASTRUCTURE_REASON, ConditionSeverity.Info);
    return done();
  }

  let value: string;
  const format: BootstrapFormat = config.spec?.format ?? 'cloud-config';
  try {
    const spec = await resolveSecretReferences(config.spec ?? {}, secretReader(deps.client, namespace));
    const resolved: KubeadmConfig = { ...config, spec };
    value = format === 'ignition' ? renderIgnition(resolved, machine, cluster) : renderCloudConfig(resolved, machine, cluster);
  } catch (error) {
    if (!(error instanceof MissingSecretError)) throw error;
    markFalse(config, DATA_SECRET_AVAILABLE_CONDITION, DATA_SECRET_GENERATION_FAILED_REASON, ConditionSeverity.Warning, error.message);
    return done({ requeueAfterMs: deps.missingSecretRetryMs });
  }
  await writeDataSecret(deps.client, cached, cluster.metadata.name ?? '', value, format);
  status.ready = true;
  status.dataSecretName = cached.metadata.name ?? '';
  markTrue(config, DATA_SECRET_AVAILABLE_CONDITION);
  return done();
}

function secretReader(client: Client, namespace: string): (name: string, key: string) => Promise<string | undefined> {
  return async (name, key) => {
    try {
      const secret = await client.api(SecretResource, namespace).get(name);
      const data = secret.data?.[key];
      return data === undefined ? undefined : decodeSecretValue(data);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
}

/**
 * The bootstrap data Secret, named like the config: keys `value` and `format`, the cluster-name label,
 * type `cluster.x-k8s.io/secret` and the config as controller owner. An existing one (a render that
 * stored its Secret but not its status) is brought up to date.
 */
async function writeDataSecret(client: Client, config: Readonly<KubeadmConfig>, clusterName: string, value: string, format: BootstrapFormat): Promise<void> {
  const name = config.metadata.name ?? '';
  const api = client.api(SecretResource, config.metadata.namespace ?? '');
  const metadata = {
    name,
    labels: { [CLUSTER_NAME_LABEL]: clusterName },
    ownerReferences: [
      { apiVersion: config.apiVersion, kind: config.kind, name, uid: config.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
    ],
  };
  const stringData = { value, format };
  try {
    await api.create(newSecret({ metadata, type: CLUSTER_SECRET_TYPE, stringData }));
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    await api.mergePatch(name, { metadata: { labels: metadata.labels, ownerReferences: metadata.ownerReferences }, stringData });
  }
}
