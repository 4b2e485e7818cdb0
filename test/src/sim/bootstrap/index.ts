// Bootstrap simulator: plays the Cluster API kubeadm bootstrap provider (CABPK, `bootstrap.cluster.x-k8s.io/v1beta1`
// KubeadmConfig) on the real apiserver, for the part of its contract CAPI core and CAPM3 see.
//
// Covered:
// - Waits for an owner Machine (ownerReference set by the Machine controller) and for its Cluster's
//   `status.infrastructureReady` (condition DataSecretAvailable False, WaitingForClusterInfrastructure,
//   meanwhile); a paused Cluster or `cluster.x-k8s.io/paused` config is left alone.
// - Renders the bootstrap data once: cloud-config (default; `## template: jinja` header, write_files,
//   runcmd with pre/post-kubeadm commands around `kubeadm init|join … && echo success > …`, bootcmd,
//   ntp, users, disk_setup/fs_setup, mounts) or Ignition 2.3.0 JSON (`format: ignition`, see
//   ignition.ts for what it leaves out). The kubeadm config file carries ClusterConfiguration +
//   InitConfiguration (first control plane machine: control-plane label and no JoinConfiguration) or
//   JoinConfiguration, in kubeadm v1beta3 or v1beta4 by the Machine's version, with the Cluster's
//   endpoint, name, networking and the Machine's version filled in, and the nodeRegistration as given
//   (so `kubeletExtraArgs['node-labels']`, e.g. `metal3.io/uuid={{ ds.meta_data.uuid }}`, reaches the
//   kubelet; `readNodeRegistration` reads it back).
// - Files and passwords from Secrets (`contentFrom`, `passwdFrom`); a missing one fails the render
//   (DataSecretAvailable False, DataSecretGenerationFailed, Warning) and is retried.
// - Secret named like the config, type `cluster.x-k8s.io/secret`, keys `value` and `format`, label
//   `cluster.x-k8s.io/cluster-name`, controller owner reference to the config; then `status.ready`,
//   `status.dataSecretName`, conditions DataSecretAvailable and Ready True. A Machine that already
//   names `spec.bootstrap.dataSecretName` makes the config ready with that name, rendering nothing.
//
// Not covered: certificates (CABPK creates the cluster CA Secrets and writes them into the init
// data; the workload-cluster simulator supplies its own kubeconfig), bootstrap tokens in the workload
// cluster and their refresh (a well-formed token derived from the config is written, with
// `unsafeSkipCAVerification` instead of CA pinning), the init lock and the ControlPlaneInitialized
// gate (workers render as soon as the infrastructure is ready), MachinePool owners, v1beta2
// conditions, `useExperimentalRetryJoin`, re-rendering after a change (CABPK does not either).
import type { KubeObject } from '@metal3-ts/generated';
import { KubeadmConfigResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import { CLUSTER_NAME_LABEL, kubeadmConfigReconciler } from './reconciler.ts';

export { CLOUD_CONFIG_HEADER, renderCloudConfig } from './cloud-config.ts';
export { renderIgnition } from './ignition.ts';
export { kubeadmConfigFileOf, type NodeRegistration, parseNodeLabels, readNodeRegistration } from './bootstrap-data.ts';
export { type BootstrapMode, bootstrapMode, kubeadmApiVersionFor } from './kubeadm-config.ts';
export { KUBEADM_INIT_CONFIG_PATH, KUBEADM_JOIN_CONFIG_PATH } from './plan.ts';
export {
  type BootstrapFormat,
  CLUSTER_SECRET_TYPE,
  DATA_SECRET_AVAILABLE_CONDITION,
  DATA_SECRET_GENERATION_FAILED_REASON,
  WAITING_FOR_CLUSTER_INFRASTRUCTURE_REASON,
} from './reconciler.ts';

export interface BootstrapSimulatorOptions {
  /** Wait before retrying a config whose files or users name a missing Secret; default 1 s. */
  readonly missingSecretRetryMs?: number;
  readonly maxConcurrentReconciles?: number;
}

/** A Machine wakes the KubeadmConfig its `spec.bootstrap.configRef` names. */
export function machineToKubeadmConfig(machine: Readonly<Machine>): Request[] {
  const ref = machine.spec?.bootstrap?.configRef;
  const namespace = machine.metadata.namespace;
  if (!ref?.name || !namespace || ref.kind !== KubeadmConfigResource.kind) return [];
  if (ref.apiVersion && apiGroupOf(ref.apiVersion) !== KubeadmConfigResource.group) return [];
  return [{ namespace, name: ref.name }];
}

/** The bootstrap simulator's controllers (one: KubeadmConfig, woken by its Machine and Cluster). */
export function bootstrapSimulator(deps: SimulatorDeps, options: BootstrapSimulatorOptions = {}): Runnable[] {
  const machines = deps.informers.informerFor(MachineResource);
  const configs = deps.informers.informerFor(KubeadmConfigResource);
  // A Cluster becoming ready (or unpaused) wakes the configs of its Machines and those labelled with it.
  const clusterToConfigs = (cluster: Readonly<Cluster>): Request[] => {
    const namespace = cluster.metadata.namespace;
    if (!namespace) return [];
    const ofMachines = machines.store
      .list(namespace)
      .filter((m) => m.spec?.clusterName === cluster.metadata.name)
      .flatMap(machineToKubeadmConfig);
    const labelled = configs.store
      .list(namespace)
      .filter((c: Readonly<KubeObject>) => c.metadata.labels?.[CLUSTER_NAME_LABEL] === cluster.metadata.name)
      .map((c) => ({ namespace, name: c.metadata.name ?? '' }));
    return [...ofMachines, ...labelled];
  };
  const controller = controllerFor('sim-bootstrap-kubeadmconfig', KubeadmConfigResource, deps)
    .watches(MachineResource, machineToKubeadmConfig)
    .watches(ClusterResource, clusterToConfigs)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build(kubeadmConfigReconciler({ client: deps.client, informers: deps.informers, missingSecretRetryMs: options.missingSecretRetryMs ?? 1000 }));
  return [controller];
}
