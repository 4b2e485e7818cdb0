// The label-sync controller in the test process through the shared runner
// (@metal3-ts/test/testing/controller-runner: as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml, an exact request counter that its workload clients count on too), and the
// scene around it: the workload-cluster simulator (a real workload kube-apiserver per Cluster, its
// `<cluster>-kubeconfig` Secret, and the kubelet that registers a provisioned host's Node), plus the
// objects the other controllers and Cluster API would have made (Cluster, Metal3Cluster, Machine with
// its nodeRef, Metal3Machine, a provisioned host consumed by it).
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import { Metal3ClusterResource, Metal3MachineResource, newMetal3Cluster, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { workloadSimulator } from '@metal3-ts/test/sim/workload/index';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { labelSyncController, type LabelSyncControllerConfig } from '../src/controller.ts';
import { CONTROLLER_NAME, LABEL_SYNC_PREFIXES_ANNOTATION } from '../src/names.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
export { eventually, type RunningController } from '@metal3-ts/test/testing/controller-runner';

export const CLUSTER = 'ls1';
export const HOST = 'host-0';
const M3M = 'm3m-0';
const MACHINE = 'machine-0';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI = 'cluster.x-k8s.io/v1beta1';

/** Starts the controller under a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export function startLabelSyncController(env: TestEnv, namespace: string, config: LabelSyncControllerConfig = {}): Promise<RunningController> {
  return startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'labelsync-controller',
    component: 'metal3-ts-labelsync',
    controllers: [CONTROLLER_NAME],
    // LABELSYNC_TEST_LOG=1 prints everything the controller logs (for debugging a test).
    verboseEnv: 'LABELSYNC_TEST_LOG',
    build: (deps) => {
      const cache = new ClusterCache(deps.client, { log: deps.log, counter: deps.counter, closeGraceMs: 50 });
      const controller = labelSyncController({ ...deps, workloadClient: (cluster) => cache.get(cluster), config: { concurrency: 4, ...config } });
      return { start: (signal) => controller.start(signal), close: () => cache.close() };
    },
  });
}

/** The workload-cluster simulator for `namespace` (all, when undefined): apiserver and kubeconfig Secret per Cluster, kubelets. */
export function startWorkloadWorld(env: TestEnv, namespace?: string): Promise<RunningSimulators> {
  const deps = simulatorDeps(env.admin);
  return startSimulators(deps, workloadSimulator(deps, { env, retryAfterMs: 100, ...(namespace ? { namespace } : {}) }));
}

/**
 * Cluster, Metal3Cluster (owned by the Cluster, `prefixes` in its annotation), Machine (no nodeRef
 * yet), its Metal3Machine, and host-0 consumed by it and provisioned (so its kubelet registers the
 * Node `host-0`), with `hostLabels`.
 */
export async function createScene(client: Client, ns: string, prefixes: string, hostLabels: Record<string, string>): Promise<void> {
  const cluster = await client.api(ClusterResource, ns).create(
    newCluster({ metadata: { name: CLUSTER }, spec: { infrastructureRef: { apiVersion: INFRA, kind: 'Metal3Cluster', name: CLUSTER } } }),
  );
  await client.api(Metal3ClusterResource, ns).create(
    newMetal3Cluster({
      metadata: {
        name: CLUSTER,
        labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER },
        annotations: { [LABEL_SYNC_PREFIXES_ANNOTATION]: prefixes },
        ownerReferences: [{ apiVersion: CAPI, kind: 'Cluster', name: CLUSTER, uid: cluster.metadata.uid ?? '' }],
      },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true },
    }),
  );
  const machine = await client.api(MachineResource, ns).create(
    newMachine({
      metadata: { name: MACHINE, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      spec: { clusterName: CLUSTER, bootstrap: { dataSecretName: 'bootstrap' }, infrastructureRef: { apiVersion: INFRA, kind: 'Metal3Machine', name: M3M } },
    }),
  );
  await client.api(Metal3MachineResource, ns).create(
    newMetal3Machine({
      metadata: {
        name: M3M,
        labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER },
        annotations: { 'metal3.io/BareMetalHost': `${ns}/${HOST}` },
        ownerReferences: [{ apiVersion: CAPI, kind: 'Machine', name: MACHINE, uid: machine.metadata.uid ?? '', controller: true }],
      },
      spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' } },
    }),
  );
  const hosts = client.api(BareMetalHostResource, ns);
  const host = await hosts.create(
    newBareMetalHost({
      metadata: { name: HOST, labels: hostLabels },
      spec: { online: true, consumerRef: { apiVersion: INFRA, kind: 'Metal3Machine', name: M3M, namespace: ns } },
    }),
  );
  await hosts.mergePatchStatus(HOST, {
    status: { errorCount: 0, errorMessage: '', operationalStatus: 'OK', poweredOn: true, provisioning: { ID: host.metadata.uid ?? '', state: 'provisioned' } },
  });
}

/** What Cluster API does once the Node registered: the Machine's nodeRef. */
export function setNodeRef(client: Client, ns: string, node: string): Promise<unknown> {
  return client.api(MachineResource, ns).mergePatchStatus(MACHINE, { status: { nodeRef: { apiVersion: 'v1', kind: 'Node', name: node } } });
}

/** Merge-patches the host's labels (`null` removes one). */
export function patchHostLabels(client: Client, ns: string, labels: Record<string, string | null>): Promise<unknown> {
  return client.api(BareMetalHostResource, ns).mergePatch(HOST, { metadata: { labels } });
}

/** The workload cluster's Node API, through a ClusterCache on the admin client, once the cluster answers. */
export async function workloadNodes(cache: ClusterCache, ns: string) {
  const client = await eventually('the workload cluster reachable', () => cache.get({ namespace: ns, name: CLUSTER }), 60_000);
  return client.api(NodeResource);
}

/** Polls the Node every 20 ms until `check` accepts it; returns it. */
export function nodeWhen(
  nodes: { get(name: string): Promise<Node> },
  name: string,
  what: string,
  check: (n: Node) => boolean,
  timeoutMs = 10_000,
): Promise<Node> {
  return eventually(what, async () => {
    const node = await nodes.get(name);
    return check(node) ? node : undefined;
  }, { timeoutMs, pollMs: 20 });
}

/** Requests the controller sent to either apiserver, watches (re)opened by informers left out. */
export function requestsBut(controller: RunningController, verb = 'watch'): number {
  return controller.counter.count() - controller.counter.count({ verb });
}
