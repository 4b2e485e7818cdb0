// Real KubeadmControlPlane with 3 replicas on the simulated workload cluster, with Cluster API
// v1.13.5 (KCP served as v1beta2) and v1.10.10 (v1beta1, v1beta2 conditions under status.v1beta2):
// the seed 003 cluster (manifests/cluster.yaml) reaches Running and KCP Available with 3 ready
// replicas and EtcdClusterHealthy True (issue 17). KCP's etcd client reaches each control-plane
// Node's etcd member through the workload apiserver's port-forward to `etcd-<node>` (the simulated
// kubelet's SPDY endpoint) with its `<cluster>-etcd` client certificate; the members are real etcd
// processes named after the Nodes. Scaling down to 1 has KCP move the leader and remove the members
// of the Machines it deletes; a rollout then adds a member for the new Machine and removes the old.
import { suite } from 'uvu';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { EXAMPLE_MANIFESTS, type Lab, startLab } from '../lab/lab.ts';
import { CAPI, CLUSTER, eventually, running, seconds } from './support.ts';

const KCP = 'm3cluster-controlplane';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
/** What the scenario reads of KCP's status, the same for both API versions. */
interface KcpStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  /** v1beta2 conditions (Available, EtcdClusterHealthy, ...). */
  conditions?: Condition[];
}
interface RawStatus extends Omit<KcpStatus, 'conditions'> {
  conditions?: Condition[];
  v1beta2?: { availableReplicas?: number; conditions?: Condition[] };
}

const isTrue = (s: KcpStatus, type: string) => (s.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const show = (s: KcpStatus) => {
  console.log(`    KCP replicas=${s.replicas} ready=${s.readyReplicas} available=${s.availableReplicas}`);
  for (const c of s.conditions ?? []) console.log(`    KCP ${c.type}=${c.status} ${c.reason ?? ''} ${(c.message ?? '').replace(/\s+/g, ' ').slice(0, 140)}`);
};

function scenario(version: string): void {
  const apiVersion = version === 'v1.10.10' ? 'v1beta1' : 'v1beta2';
  const test = suite(`end to end: real KubeadmControlPlane ${version}, 3 replicas, etcd membership`);
  let lab: Lab;

  const kcpPath = () => `/apis/controlplane.cluster.x-k8s.io/${apiVersion}/namespaces/${lab.namespace}/kubeadmcontrolplanes/${KCP}`;
  const kcpStatus = async (): Promise<KcpStatus> => {
    const raw = (await lab.env.admin.client.get<{ status?: RawStatus }>(kcpPath())).status ?? {};
    if (apiVersion === 'v1beta2') return raw;
    return { replicas: raw.replicas, readyReplicas: raw.readyReplicas, availableReplicas: raw.v1beta2?.availableReplicas, conditions: raw.v1beta2?.conditions };
  };
  /** KCP settled at `replicas`: all ready, available and up to date, Available and EtcdClusterHealthy True. */
  const settled = (replicas: number) => async () => {
    const s = await kcpStatus();
    const ok = s.replicas === replicas && s.readyReplicas === replicas && s.availableReplicas === replicas && isTrue(s, 'Available') &&
      isTrue(s, 'EtcdClusterHealthy') && isTrue(s, 'MachinesUpToDate');
    return ok ? s : undefined;
  };
  const settle = (replicas: number) =>
    eventually(`KCP settled at ${replicas} with a healthy etcd`, settled(replicas), { timeoutMs: 300_000 }).catch(async (error: Error) => {
      show(await kcpStatus());
      throw error;
    });

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
  const members = (count: number) =>
    eventually(`${count} etcd member(s), one per control-plane Node`, async () => {
      const now = await membership();
      return now.nodes.length === count && now.members.join() === now.nodes.join() ? now : undefined;
    });

  test.before(async () => {
    // uvu drops an error thrown by a before hook without a word: say it.
    lab = await startLab({ hosts: 6, controlPlaneHosts: 3, capi: version, manifests: EXAMPLE_MANIFESTS }).catch((error: Error) => {
      console.error(`    lab for ${version} did not start: ${error.stack ?? error.message}`);
      throw error;
    });
  });

  test.after(async () => {
    await lab?.stop();
  });

  test(`real KCP ${version}, 3 replicas: Running, KCP Available with 3 ready replicas, EtcdClusterHealthy True, one etcd member per control-plane Node`, async () => {
    const t0 = performance.now();
    await running(lab, 300_000);
    console.log(`    Running after ${seconds(t0)} s`);
    const s = await settle(3);
    console.log(`    KCP Available with 3 replicas after ${seconds(t0)} s`);
    show(s);
    await members(3);
  });

  test('scaled down to 1: KCP removes the etcd members of the Machines it deletes; the last member stays healthy', async () => {
    const t0 = performance.now();
    await lab.env.admin.client.mergePatch(kcpPath(), { spec: { replicas: 1 } });
    await settle(1);
    const { nodes } = await members(1);
    console.log(`    scaled 3 -> 1 in ${seconds(t0)} s (${nodes.join()} left)`);
  });

  test('a rollout replaces the last control-plane Machine: a member joins for the new Node, the old one is removed', async () => {
    const t0 = performance.now();
    const before = (await membership()).nodes;
    const after = new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    await lab.env.admin.client.mergePatch(kcpPath(), { spec: apiVersion === 'v1beta2' ? { rollout: { after } } : { rolloutAfter: after } });
    let last = '';
    const { nodes } = await eventually('a new control-plane Node with its member, the old one gone', async () => {
      const now = await membership();
      const s = await kcpStatus();
      last = `nodes ${now.nodes.join()} members ${now.members.join()}; KCP replicas=${s.replicas} ready=${s.readyReplicas} ` +
        (s.conditions ?? []).filter((c) => c.status !== 'True' || c.type === 'RollingOut').map((c) => `${c.type}=${c.status} ${c.reason} ${c.message}`).join(
          '; ',
        );
      return now.nodes.length === 1 && now.nodes[0] !== before[0] && now.members.join() === now.nodes.join() ? now : undefined;
    }, { timeoutMs: 300_000, explain: () => [last] });
    show(await settle(1));
    console.log(`    rolled out ${before.join()} -> ${nodes.join()} in ${seconds(t0)} s`);
  });

  test.run();
}

// One release per run: npm test runs the scenarios once per release (CAPI_VERSION, support.ts).
if (CAPI !== 'sim') scenario(CAPI);
