// One workload apiserver per Cluster, and the `<cluster>-kubeconfig` Secret that lets everyone else
// (CAPI, CAPM3, the simulated kubelets) reach it. Plays the part of the control plane coming up and
// of whichever CAPI component writes the kubeconfig Secret.
//
// Lifecycle: a new Cluster gets our finalizer, then the Secret and its apiserver (the Secret first:
// the kubeconfig names the apiserver's front door, which holds clients until the apiserver serves). The Secret is ours
// whoever wrote it first: KubeadmControlPlane writes (and later adopts) it pointing at the Cluster's
// controlPlaneEndpoint, which nothing here serves, so its value is rewritten to reach our apiserver
// (client certificate, see envtest/workload.ts) as soon as it appears; KCP keeps it while the
// certificate is far from expiry. A deleted Cluster
// keeps its apiserver until no Machine of the cluster is left (the real control plane is the last
// thing to go), then the Secret is deleted, the apiserver stopped and the finalizer removed.
// Differences from production: the apiserver starts as soon as the Cluster exists, not when the first
// control-plane host boots; an apiserver stopped by someone else (a test making the cluster
// unreachable) is not restarted by this simulator instance (a new instance starts it again, with its
// objects, as a control plane coming back).
import { isNotFound } from '@metal3-ts/generated';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import type { ReconcileContext, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { type ClusterKey, clusterKeyString, kubeconfigSecretName } from '@metal3-ts/shared/workload/errors';
import { KUBECONFIG_SECRET_KEY } from '@metal3-ts/shared/workload/kubeconfig-secret';
import type { SimulatorDeps } from '../simulator.ts';
import { CLUSTER_NAME_LABEL, inNamespace } from './host-cluster.ts';
import { isCapiKubeconfig, kubeconfigAction, kubeconfigSecretFor } from './kubeconfig-secret.ts';
import { CLUSTER_FINALIZER, SKIP_ANNOTATION, workloadClusterName } from './names.ts';
import type { WorkloadClusterEnv } from './options.ts';

export interface ClusterControllerContext {
  readonly env: WorkloadClusterEnv;
  readonly clusterCache: ClusterCache;
  readonly namespace?: string | undefined;
  /** Apiserver names this simulator serves (started or found running), by Cluster key; shared with shutdown. */
  readonly served: Map<string, string>;
}

/** A `<cluster>-kubeconfig` Secret wakes its Cluster, so one written by KCP is taken over at once. */
const secretToCluster = (secret: Readonly<Secret>): Request[] => {
  const name = secret.metadata.labels?.[CLUSTER_NAME_LABEL];
  return name && secret.metadata.namespace && secret.metadata.name === kubeconfigSecretName(name) ? [{ namespace: secret.metadata.namespace, name }] : [];
};

/** Machines wake their Cluster, so a deleting Cluster notices its last Machine going. */
const machineToCluster = (machine: Readonly<Machine>): Request[] => {
  const name = machine.metadata.labels?.[CLUSTER_NAME_LABEL] || machine.spec?.clusterName;
  return name && machine.metadata.namespace ? [{ namespace: machine.metadata.namespace, name }] : [];
};

export function workloadClusterController(deps: SimulatorDeps, ctx: ClusterControllerContext): Controller {
  const clusters = deps.informers.informerFor(ClusterResource);
  const machines = deps.informers.informerFor(MachineResource);
  const started = ctx.served;

  const stop = async (key: ClusterKey, name: string, log: ReconcileContext['log']): Promise<void> => {
    ctx.clusterCache.drop(key);
    if (ctx.env.workloadClusters.has(name)) {
      await ctx.env.stopWorkloadCluster(name);
      log.info('workload apiserver stopped', { apiserver: name });
    }
    started.delete(clusterKeyString(key));
  };

  const ensureSecret = async (cluster: Readonly<Cluster>, kubeconfig: string, log: ReconcileContext['log']): Promise<void> => {
    const secrets = deps.client.api(SecretResource, cluster.metadata.namespace);
    const wanted = kubeconfigSecretFor(cluster, kubeconfig);
    let existing: Secret;
    try {
      existing = await secrets.get(wanted.metadata.name!);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await secrets.create(wanted);
      log.info('kubeconfig Secret created', { secret: wanted.metadata.name });
      return;
    }
    const action = kubeconfigAction(existing, wanted);
    if (action === 'foreign') {
      log.debug('kubeconfig Secret is not of Cluster API type; leaving it', { secret: wanted.metadata.name, type: existing.type });
      return;
    }
    if (action === 'rewrite') {
      // resourceVersion guards against a writer in between (KCP adopting it): the retry re-reads.
      await secrets.mergePatch(wanted.metadata.name!, {
        metadata: { resourceVersion: existing.metadata.resourceVersion },
        data: { [KUBECONFIG_SECRET_KEY]: wanted.data![KUBECONFIG_SECRET_KEY]! },
      });
      const owner = existing.metadata.ownerReferences?.find((ref) => ref.controller)?.kind ?? 'none';
      log.info('kubeconfig Secret pointed at the workload apiserver', { secret: wanted.metadata.name, controller: owner });
    }
  };

  const reconcileDelete = async (cluster: Readonly<Cluster>, key: ClusterKey, log: ReconcileContext['log']): Promise<Result> => {
    if (!hasFinalizer(cluster, CLUSTER_FINALIZER)) return {};
    const remaining = machines.store.list(key.namespace).filter((m) => machineToCluster(m).some((r) => r.name === key.name));
    if (remaining.length > 0) {
      log.debug('cluster deleting; waiting for its machines', { machines: remaining.length });
      return {};
    }
    try {
      const secret = await deps.client.api(SecretResource, key.namespace).get(kubeconfigSecretName(key.name));
      if (isCapiKubeconfig(secret)) {
        await deps.client.api(SecretResource, key.namespace).delete(secret.metadata.name!, { preconditions: { uid: secret.metadata.uid! } });
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    await stop(key, workloadClusterName({ ...key, uid: cluster.metadata.uid }), log);
    await removeFinalizerGuarded(deps.client.api(ClusterResource, key.namespace), structuredClone(cluster) as Cluster, CLUSTER_FINALIZER);
    return {};
  };

  const reconcile = async (request: Request, { log }: ReconcileContext): Promise<Result> => {
    const key: ClusterKey = { namespace: request.namespace ?? '', name: request.name };
    const cluster = clusters.store.get(key);
    if (!cluster) {
      // Gone without passing our finalizer (it was never added, or removed by hand).
      const name = started.get(clusterKeyString(key));
      if (name) await stop(key, name, log);
      return {};
    }
    if (cluster.metadata.deletionTimestamp) return reconcileDelete(cluster, key, log);
    if (cluster.metadata.annotations?.[SKIP_ANNOTATION] === 'true') return {};

    await ensureFinalizer(deps.client.api(ClusterResource, key.namespace), structuredClone(cluster) as Cluster, CLUSTER_FINALIZER);
    const name = workloadClusterName({ ...key, uid: cluster.metadata.uid });
    let apiserver = ctx.env.workloadClusters.get(name);
    if (!apiserver) {
      if (started.has(clusterKeyString(key))) {
        log.info('workload apiserver was stopped by someone else; not restarting it', { apiserver: name });
        return {};
      }
      // The Secret is written as soon as the kubeconfig exists, while the apiserver still starts: real
      // Cluster API's ClusterCache looks once the infrastructure is provisioned (a few seconds after
      // the Cluster appears), and a Secret missing then costs it a 30 s retry. Connections meanwhile
      // wait at the apiserver's front door (envtest/workload.ts).
      const t0 = performance.now();
      apiserver = await ctx.env.startWorkloadCluster(name, {
        onKubeconfig: async (kubeconfig) => {
          await ensureSecret(cluster, kubeconfig, log);
          log.info('kubeconfig Secret ready before the workload apiserver', { apiserver: name, ms: Math.round(performance.now() - t0) });
        },
      });
      log.info('workload apiserver started', { apiserver: name, ms: Math.round(performance.now() - t0) });
    }
    started.set(clusterKeyString(key), name);
    await ensureSecret(cluster, apiserver.kubeconfig, log);
    return {};
  };

  return controllerFor('sim-workload-cluster', ClusterResource, deps)
    .withEventFilter(inNamespace(ctx.namespace))
    .watches(MachineResource, machineToCluster)
    .watches(SecretResource, secretToCluster)
    .build(reconcile);
}
