// Workload-cluster simulator: the clusters Cluster API creates and the kubelets that join them.
//
// Covers:
// - per Cluster (`cluster.x-k8s.io/v1beta1`): a workload kube-apiserver from the test environment and
//   the `<cluster>-kubeconfig` Secret (key `value`, cluster-name label, type `cluster.x-k8s.io/secret`,
//   controlled by the Cluster), usable by the harness's ClusterCache; on deletion, once the cluster's
//   Machines are gone, the Secret is deleted and the apiserver stopped (finalizer
//   `workload.sim.metal3-ts.dev/apiserver`). Annotation `workload.sim.metal3-ts.dev/skip: "true"`
//   opts a Cluster out (bring your own apiserver and Secret).
// - per BareMetalHost consumed by a Metal3Machine of a cluster: when BMO reports it `provisioned`,
//   its kubelet registers a Node named as cloud-init and kubeadm would name it (kubeadm
//   `nodeRegistration.name`, else the metaData Secret's `local-hostname` / `local_hostname`, else the
//   host's name), labelled `kubernetes.io/hostname=<node>` plus the rendered `node-labels` of the
//   bootstrap data (CAPM3's `metal3.io/uuid={{ ds.meta_data.uuid }}` becomes the host's uid), Ready,
//   with addresses from the host's NICs; when the host leaves `provisioned` the Node goes away.
// - providerID modes (option `mode`, per Cluster annotation `workload.sim.metal3-ts.dev/provider-id-mode`):
//   `default` leaves it empty for CAPM3 (unless the bootstrap data passes the kubelet a
//   `provider-id`, which the kubelet then registers with); `cloud-provider` sets
//   `metal3://<ns>/<host>/<metal3machine>`; `legacy` sets `metal3://<host uid>`.
// - the kubeconfig authenticates with a client certificate (system:masters) from the workload
//   apiserver's own CA; a `<cluster>-kubeconfig` of Cluster API's type written or adopted by KCP
//   (pointing at `spec.controlPlaneEndpoint`) is rewritten to reach the workload apiserver.
// - a control-plane Node's static pods as Ready mirror Pods, and `kube-system/kubeadm-config`.
// - an unhealthy kubelet, per BareMetalHost annotation valued with the host's consumer name (that
//   provisioning only; the next consumer gets a fresh kubelet): `workload.sim.metal3-ts.dev/kubelet-stopped`
//   makes the Node's conditions `Unknown` (`NodeStatusUnknown`, heartbeat kept) with the
//   `node.kubernetes.io/unreachable` taints, as the node lifecycle controller marks a dead kubelet, at
//   once; `workload.sim.metal3-ts.dev/kubelet-not-ready` makes Ready `False` (`KubeletNotReady`) with
//   the `not-ready` taints; removing the annotation makes the Node Ready again (kubelet-state.ts).
// - a control-plane Node's kubelet port-forward endpoint (SPDY/3.1, reached by the workload
//   apiserver through its node network under the Node's name) to `etcd-<node>` port 2379 and
//   `kube-apiserver-<node>`; and, when the cluster has KCP's `<cluster>-etcd` CA, a real etcd member
//   named after the Node (the first starts the cluster, the next join it), serving TLS to client
//   certificates of that CA, stopped with the Node (node-runtime.ts). So KubeadmControlPlane's etcd
//   checks, MoveLeader and MemberRemove work as on a kubeadm cluster.
// Does not cover: control-plane endpoints (the apiserver's address is not the Cluster's
// controlPlaneEndpoint), the certificates KCP generates (`<cluster>-ca` is not trusted; etcd's
// serving certificate is not signed by `<cluster>-etcd`), exec, logs, websocket port-forward,
// periodic node heartbeats, NotReady on power-off, kubelet restarts on reboot, Ignition user data.
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { clusterKeyString } from '@metal3-ts/shared/workload/errors';
import type { SimulatorDeps } from '../simulator.ts';
import { workloadClusterController } from './cluster-controller.ts';
import { kubeletController } from './kubelet-controller.ts';
import { NodeRuntimes } from './node-runtime.ts';
import type { WorkloadSimulatorOptions } from './options.ts';

export * from './names.ts';
export { KUBELET_NOT_READY_ANNOTATION, KUBELET_STOPPED_ANNOTATION, NOT_READY_TAINT, UNREACHABLE_TAINT } from './kubelet-state.ts';
export type { WorkloadApiserver, WorkloadClusterEnv, WorkloadSimulatorOptions } from './options.ts';

/** On shutdown: closes the workload clients and, unless told otherwise, stops the apiservers served. */
function shutdown(cache: ClusterCache, served: ReadonlyMap<string, string>, runtimes: NodeRuntimes, options: WorkloadSimulatorOptions): Runnable {
  return {
    name: 'sim-workload-shutdown',
    needsLeaderElection: false,
    async start(signal) {
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      cache.close();
      await runtimes.closeAll();
      if (options.stopApiserversOnStop === false) return;
      const names = [...new Set(served.values())].filter((name) => options.env.workloadClusters.has(name));
      await Promise.all(names.map((name) => options.env.stopWorkloadCluster(name)));
    },
  };
}

export function workloadSimulator(deps: SimulatorDeps, options: WorkloadSimulatorOptions): Runnable[] {
  const clusterCache = new ClusterCache(deps.client, {
    log: deps.log,
    clock: deps.clock,
    registry: deps.registry,
    closeGraceMs: 100,
    probeTimeoutMs: 2_000,
  });
  const namespace = options.namespace;
  const served = new Map<string, string>();
  const runtimes = new NodeRuntimes(deps.client, (cluster) => {
    const name = served.get(clusterKeyString(cluster));
    return name === undefined ? undefined : options.env.workloadClusters.get(name);
  });
  return [
    workloadClusterController(deps, { env: options.env, clusterCache, namespace, served }),
    kubeletController(deps, {
      namespace,
      clusterCache,
      mode: options.mode ?? 'default',
      retryAfterMs: options.retryAfterMs ?? 250,
      joinDelayMs: options.joinDelayMs ?? 0,
      runtimes,
    }),
    shutdown(clusterCache, served, runtimes, options),
  ];
}
