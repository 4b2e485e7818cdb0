// The processes a simulated control-plane Node runs besides registering itself: its kubelet endpoint
// (kubelet-server.ts, attached to the workload cluster's node network under the Node's name) and,
// when the cluster has KubeadmControlPlane's `<cluster>-etcd` CA, its etcd member
// (etcd-membership.ts decides new or join). Port-forward reaches `etcd-<node>` port 2379 (the member's
// TLS client port, client certificates of that CA) and `kube-apiserver-<node>` (the workload
// apiserver). Started once per Node; stop() detaches, closes the endpoint and stops the member.
// Needs an environment that offers a node network and etcd members (envtest's workload clusters);
// with anything else it does nothing.
import { request } from 'node:http';
import { type Client, isNotFound } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type ClusterKey, clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { issueCertificate } from '../../envtest/pki.ts';
import { KUBE_SYSTEM, mirrorPodName } from './control-plane.ts';
import { etcdCaPem, etcdPlan, type GatewayMember, initialCluster, staleMembers } from './etcd-membership.ts';
import { startKubeletServer } from './kubelet-server.ts';
import type { WorkloadApiserver } from './options.ts';

export const ETCD_CLIENT_PORT = 2379;

export interface NodeRuntime {
  /** The Node goes: its kubelet endpoint closes and its etcd member stops. */
  stop(): Promise<void>;
  /** The simulator goes: the endpoint closes, the member keeps running with its cluster. */
  close(): Promise<void>;
}

/** POST to etcd's JSON gateway on a member's node-local URL. */
function gateway<T>(baseUrl: string, path: string, body: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as T) : reject(new Error(`etcd ${path}: HTTP ${res.statusCode}: ${text}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`etcd ${path} timed out`)));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function etcdCa(management: Client, cluster: ClusterKey): Promise<string | undefined> {
  try {
    return etcdCaPem((await management.api(SecretResource, cluster.namespace).get(`${cluster.name}-etcd`)).data);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function ensureMember(workload: Required<WorkloadApiserver>, nodeName: string, caPem: string, log: Logger): Promise<void> {
  const plan = etcdPlan(nodeName, workload.etcdMembers);
  if (plan.action === 'running') return;
  // etcd's JSON gateway dials the member's own TLS port with this certificate as client, so it must
  // chain to a trusted CA: a CA of the Node's own, trusted beside the cluster's (KCP does not verify
  // the server; kubeadm would sign with the cluster's CA key instead).
  const nodeCa = issueCertificate({ commonName: `${nodeName}-etcd-ca`, usage: 'ca', days: 365 });
  const cert = issueCertificate({ commonName: nodeName, dnsNames: [nodeName, 'localhost'], ipAddresses: ['127.0.0.1'], usage: 'peer', days: 365 }, nodeCa);
  const tls = { certPem: cert.certPem, keyPem: cert.keyPem, clientCaPem: caPem + nodeCa.certPem };
  if (plan.action === 'new') {
    await workload.startEtcdMember({ name: nodeName, tls });
    log.info('etcd member started (new cluster)', { node: nodeName });
    return;
  }
  let added: string | undefined;
  try {
    await workload.startEtcdMember({
      name: nodeName,
      tls,
      join: async (urls) => {
        const listed = await gateway<{ members?: GatewayMember[] }>(plan.through, '/v3/cluster/member/list', {});
        for (const id of staleMembers(nodeName, listed.members ?? [])) {
          await gateway(plan.through, '/v3/cluster/member/remove', { ID: id });
          log.info('stale etcd member of the same name removed', { node: nodeName, member: id });
        }
        const response = await gateway<{ member?: GatewayMember; members?: GatewayMember[] }>(plan.through, '/v3/cluster/member/add', {
          peerURLs: [urls.peerUrl],
        });
        added = response.member?.ID;
        return initialCluster(nodeName, urls.peerUrl, response.members ?? []);
      },
    });
  } catch (error) {
    // A member added but never started costs the cluster its quorum (two members, one alive): take it
    // back before the kubelet retries, as a failed `kubeadm join` is cleaned up by `kubeadm reset`.
    if (added) await gateway(plan.through, '/v3/cluster/member/remove', { ID: added }).catch(() => undefined);
    throw error;
  }
  log.info('etcd member started (joined)', { node: nodeName, members: workload.etcdMembers.size });
}

export async function startNodeRuntime(options: {
  readonly management: Client;
  readonly cluster: ClusterKey;
  readonly nodeName: string;
  readonly workload: WorkloadApiserver;
  readonly log: Logger;
}): Promise<NodeRuntime | undefined> {
  const { workload, nodeName, log } = options;
  if (!workload.nodeNetwork || !workload.etcdMembers || !workload.startEtcdMember || !workload.stopEtcdMember || !workload.server) return undefined;
  const full = workload as Required<WorkloadApiserver>;
  const caPem = await etcdCa(options.management, options.cluster);
  if (caPem) await ensureMember(full, nodeName, caPem, log);
  else log.info('no <cluster>-etcd CA: the Node runs no etcd member', { cluster: clusterKeyString(options.cluster), node: nodeName });

  const apiserverPort = Number(new URL(full.server).port);
  const kubelet = await startKubeletServer(nodeName, (pod, port) => {
    if (pod === `${KUBE_SYSTEM}/${mirrorPodName('kube-apiserver', nodeName)}`) return apiserverPort;
    if (pod !== `${KUBE_SYSTEM}/${mirrorPodName('etcd', nodeName)}`) return `pod ${pod} does not run on node ${nodeName}`;
    if (port !== ETCD_CLIENT_PORT) return `etcd on ${nodeName} listens on ${ETCD_CLIENT_PORT}, not ${port}`;
    const member = full.etcdMembers.get(nodeName);
    return member ? Number(new URL(member.clientUrl).port) : `etcd on ${nodeName} is not running`;
  });
  full.nodeNetwork.attach(nodeName, kubelet.port);
  const close = async () => {
    full.nodeNetwork.detach(nodeName, kubelet.port);
    await kubelet.close();
  };
  return {
    close,
    async stop() {
      await close();
      await full.stopEtcdMember(nodeName);
    },
  };
}

/** The runtimes of the Nodes one simulator runs, by cluster and Node. */
export class NodeRuntimes {
  readonly #running = new Map<string, NodeRuntime>();
  readonly #management: Client;
  readonly #workloadOf: (cluster: ClusterKey) => WorkloadApiserver | undefined;

  constructor(management: Client, workloadOf: (cluster: ClusterKey) => WorkloadApiserver | undefined) {
    this.#management = management;
    this.#workloadOf = workloadOf;
  }

  async start(cluster: ClusterKey, nodeName: string, log: Logger): Promise<void> {
    const key = `${clusterKeyString(cluster)}/${nodeName}`;
    const workload = this.#workloadOf(cluster);
    if (this.#running.has(key) || !workload) return;
    const runtime = await startNodeRuntime({ management: this.#management, cluster, nodeName, workload, log });
    if (runtime) this.#running.set(key, runtime);
  }

  async stop(cluster: ClusterKey, nodeName: string): Promise<void> {
    const key = `${clusterKeyString(cluster)}/${nodeName}`;
    const runtime = this.#running.get(key);
    this.#running.delete(key);
    await runtime?.stop();
  }

  async closeAll(): Promise<void> {
    const all = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(all.map((r) => r.close()));
  }
}
