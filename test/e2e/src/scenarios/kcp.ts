// Reading the real KubeadmControlPlane of a lab and its workload cluster's etcd membership, the same
// for Cluster API v1.13.5 (KCP served as v1beta2) and v1.10.10 (v1beta1, v1beta2 conditions under
// status.v1beta2): what the scenarios that scale, roll out or upgrade the control plane wait on
// (real-kcp, cluster-lifecycle). Waits poll outcomes (KCP's own status, the running etcd members),
// never time.
import { NodeResource } from '@metal3-ts/generated/core/v1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { EtcdMember } from '@metal3-ts/test/envtest/etcd-member';
import type { Lab } from '../lab/lab.ts';
import { CLUSTER, eventually } from './support.ts';

/** The seed 003 KubeadmControlPlane (manifests/cluster.yaml). */
export const KCP = 'm3cluster-controlplane';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
/** What the scenarios read of KCP's status, the same for both API versions. */
export interface KcpStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  /** v1beta2 conditions (Available, EtcdClusterHealthy, MachinesUpToDate, ...). */
  conditions?: Condition[];
}
interface RawStatus extends Omit<KcpStatus, 'conditions'> {
  conditions?: Condition[];
  v1beta2?: { availableReplicas?: number; conditions?: Condition[] };
}

/** Names of the workload cluster's etcd members (running processes) and of its control-plane Nodes. */
export interface Membership {
  members: string[];
  nodes: string[];
}

/** A member as etcd lists it (its JSON gateway writes the uint64 ID as a string). */
export interface ListedMember {
  ID: string;
  name: string;
}

export const isTrue = (s: KcpStatus, type: string): boolean => (s.conditions ?? []).some((c) => c.type === type && c.status === 'True');

export function showKcp(s: KcpStatus): void {
  console.log(`    KCP replicas=${s.replicas} ready=${s.readyReplicas} available=${s.availableReplicas}`);
  for (const c of s.conditions ?? []) console.log(`    KCP ${c.type}=${c.status} ${c.reason ?? ''} ${(c.message ?? '').replace(/\s+/g, ' ').slice(0, 140)}`);
}

export interface KcpReader {
  /** `v1beta2` on v1.13.5, `v1beta1` on v1.10.10. */
  readonly apiVersion: string;
  /** The KubeadmControlPlane's path in the served version (for patches in that version's shape). */
  readonly path: string;
  status(): Promise<KcpStatus>;
  /** Waits until KCP settled at `replicas`: all ready, available and up to date, Available and EtcdClusterHealthy True. */
  settle(replicas: number, timeoutMs?: number): Promise<KcpStatus>;
  membership(): Promise<Membership>;
  /** Waits for `count` control-plane Nodes with exactly one etcd member each, named after it. */
  members(count: number, timeoutMs?: number): Promise<Membership>;
  /** The member processes running now, by name (the simulator starts one per control-plane Node). */
  processes(): EtcdMember[];
  /** The cluster's member list as etcd itself holds it, asked through a running member. */
  memberList(): Promise<ListedMember[]>;
}

export function kcpReader(lab: Lab): KcpReader {
  const apiVersion = lab.capi === 'v1.10.10' ? 'v1beta1' : 'v1beta2';
  const path = `/apis/controlplane.cluster.x-k8s.io/${apiVersion}/namespaces/${lab.namespace}/kubeadmcontrolplanes/${KCP}`;
  const status = async (): Promise<KcpStatus> => {
    const raw = (await lab.env.admin.client.get<{ status?: RawStatus }>(path)).status ?? {};
    if (apiVersion === 'v1beta2') return raw;
    return { replicas: raw.replicas, readyReplicas: raw.readyReplicas, availableReplicas: raw.v1beta2?.availableReplicas, conditions: raw.v1beta2?.conditions };
  };
  const settle = (replicas: number, timeoutMs = 300_000) =>
    eventually(`KCP settled at ${replicas} with a healthy etcd`, async () => {
      const s = await status();
      const ok = s.replicas === replicas && s.readyReplicas === replicas && s.availableReplicas === replicas && isTrue(s, 'Available') &&
        isTrue(s, 'EtcdClusterHealthy') && isTrue(s, 'MachinesUpToDate');
      return ok ? s : undefined;
    }, { timeoutMs }).catch(async (error: Error) => {
      showKcp(await status());
      throw error;
    });
  const membership = async (): Promise<Membership> => {
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
  };
  const members = (count: number, timeoutMs = 60_000) => {
    let last: Membership | undefined;
    return eventually(`${count} etcd member(s), one per control-plane Node`, async () => {
      const now = last = await membership();
      return now.nodes.length === count && now.members.join() === now.nodes.join() ? now : undefined;
    }, { timeoutMs, explain: () => [`nodes ${last?.nodes.join() ?? '?'}; members ${last?.members.join() ?? '?'}`] });
  };
  const processes = () => [...([...lab.env.workloadClusters.values()][0]?.etcdMembers.values() ?? [])];
  const memberList = async (): Promise<ListedMember[]> => {
    const through = processes()[0];
    if (!through) throw new Error('no etcd member runs');
    // The member's node-local plain HTTP listener (the simulator's own way in; KCP goes through TLS).
    const response = await fetch(`${through.localUrl}/v3/cluster/member/list`, { method: 'POST', body: '{}' });
    if (!response.ok) throw new Error(`etcd member list through ${through.name}: HTTP ${response.status}`);
    const body = (await response.json()) as { members?: Partial<ListedMember>[] };
    return (body.members ?? []).map((m) => ({ ID: m.ID ?? '', name: m.name ?? '' })).sort((a, b) => a.name.localeCompare(b.name));
  };
  return { apiVersion, path, status, settle, membership, members, processes, memberList };
}
