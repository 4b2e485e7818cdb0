// Real KubeadmControlPlane (Cluster API v1.13.5) with 3 replicas on the simulated workload cluster:
// the seed 003 cluster (manifests/cluster.yaml) reaches Running and KCP Available with 3 ready
// replicas and EtcdClusterHealthy True (issue 17). KCP's etcd client reaches each control-plane
// Node's etcd member through the workload apiserver's port-forward to `etcd-<node>` (the simulated
// kubelet's SPDY endpoint) with its `<cluster>-etcd` client certificate; the members are real etcd
// processes named after the Nodes. Scaling down to 1 has KCP move the leader and remove the
// members of the Machines it deletes, whose Nodes and processes go with their hosts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { type Lab, startLab } from '../lab/lab.ts';
import { CLUSTER, eventually, running, seconds } from './support.ts';

const VERSION = 'v1.13.5';
const test = suite(`end to end: real KubeadmControlPlane ${VERSION}, 3 replicas, etcd membership`);
const KCP = 'm3cluster-controlplane';
let lab: Lab;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface KcpStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: Condition[];
}

const kcpPath = () => `/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/${lab.namespace}/kubeadmcontrolplanes/${KCP}`;
const kcpStatus = async (): Promise<KcpStatus> => (await lab.env.admin.client.get<{ status?: KcpStatus }>(kcpPath())).status ?? {};
const isTrue = (s: KcpStatus, type: string) => (s.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const show = (s: KcpStatus) => {
  console.log(`    KCP replicas=${s.replicas} ready=${s.readyReplicas} available=${s.availableReplicas}`);
  for (const c of s.conditions ?? []) console.log(`    KCP ${c.type}=${c.status} ${c.reason ?? ''} ${(c.message ?? '').replace(/\s+/g, ' ').slice(0, 140)}`);
};

/** KCP settled at `replicas`: all ready and available, Available and EtcdClusterHealthy True. */
const settled = (replicas: number) => async () => {
  const s = await kcpStatus();
  return s.replicas === replicas && s.readyReplicas === replicas && s.availableReplicas === replicas && isTrue(s, 'Available') &&
      isTrue(s, 'EtcdClusterHealthy')
    ? s
    : undefined;
};

/** Names of the workload cluster's etcd members (running processes) and of its control-plane Nodes. */
async function membership(): Promise<{ members: string[]; nodes: string[] }> {
  const workload = [...lab.env.workloadClusters.values()][0];
  const cache = new ClusterCache(lab.client, { closeGraceMs: 50 });
  try {
    const wl = await cache.get({ namespace: lab.namespace, name: CLUSTER });
    const nodes = (await wl.api(NodeResource).list()).items
      .filter((n) => n.metadata.labels?.['node-role.kubernetes.io/control-plane'] !== undefined)
      .map((n) => n.metadata.name!);
    return { members: [...(workload?.etcdMembers.keys() ?? [])].sort(), nodes: nodes.sort() };
  } finally {
    cache.close();
  }
}

test.before(async () => {
  lab = await startLab({ hosts: 6, controlPlaneHosts: 3, capi: VERSION });
});

test.after(async () => {
  await lab?.stop();
});

test(`real KCP ${VERSION}, 3 replicas: Running, KCP Available with 3 ready replicas, EtcdClusterHealthy True, one etcd member per control-plane Node`, async () => {
  const t0 = performance.now();
  await running(lab, 300_000);
  console.log(`    Running after ${seconds(t0)} s`);
  const s = await eventually('KCP settled at 3 replicas with a healthy etcd', settled(3), { timeoutMs: 300_000 }).catch(async (error: Error) => {
    show(await kcpStatus());
    throw error;
  });
  console.log(`    KCP Available with 3 replicas after ${seconds(t0)} s`);
  show(s);
  const { members, nodes } = await membership();
  assert.is(nodes.length, 3);
  assert.equal(members, nodes, 'one member per control-plane Node, named after it');
});

test('scaled down to 1: KCP removes the etcd members of the Machines it deletes; the last member stays healthy', async () => {
  const t0 = performance.now();
  await lab.env.admin.client.mergePatch(kcpPath(), { spec: { replicas: 1 } });
  const s = await eventually('KCP settled at 1 replica with a healthy etcd', settled(1), { timeoutMs: 300_000 }).catch(async (error: Error) => {
    show(await kcpStatus());
    throw error;
  });
  const { members, nodes } = await eventually('one member and one control-plane Node', async () => {
    const now = await membership();
    return now.members.length === 1 && now.nodes.length === 1 ? now : undefined;
  });
  console.log(`    scaled 3 -> 1 in ${seconds(t0)} s`);
  show(s);
  assert.equal(members, nodes);
});

test.run();
