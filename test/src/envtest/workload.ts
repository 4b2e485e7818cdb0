// Workload clusters: extra kube-apiservers that stand in for the clusters CAPI provisions. Each shares
// the environment's etcd under its own prefix (disjoint object spaces, one process fewer than a second
// etcd) and hands out a kubeconfig ready to be stored as the `<cluster>-kubeconfig` Secret, which is
// how CAPI controllers (and ours) reach a workload cluster.
//
// Each workload cluster has a client CA of its own (its `--client-ca-file`, as a kubeadm cluster's
// `ca`), and the kubeconfig authenticates with a client certificate it signs (the admin user, group
// system:masters), because real KubeadmControlPlane parses that certificate to decide when to
// rotate it. It is valid a year: KCP regenerates any kubeconfig whose client certificate expires
// within half a year (CAPI `certs.ClientCertificateRenewalDuration`), with certificates from the
// `<cluster>-ca` Secret this apiserver would not trust.
//
// Its kubelet traffic (port-forward, exec, logs) goes through a node network of its own
// (node-network.ts), where simulated kubelets attach under their Node names; its control-plane
// Nodes may run etcd members (etcd-member.ts), which stop with it.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ApiServer, startApiServer } from './apiserver.ts';
import { EnvtestError } from './errors.ts';
import { type EtcdMember, type EtcdMemberOptions, startEtcdMember } from './etcd-member.ts';
import type { KubeObject } from './http.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { type NodeNetwork, startNodeNetwork, writeEgressSelectorConfig } from './node-network.ts';
import { type Authorities, clientCertificate, issueCertificate } from './pki.ts';

/** Validity of the kubeconfig's client certificate: longer than KCP's renewal window (182.5 days). */
const KUBECONFIG_CERT_DAYS = 365;

export interface WorkloadCluster {
  readonly name: string;
  readonly apiserver: ApiServer;
  /** https://127.0.0.1:<port>, the apiserver's. */
  readonly server: string;
  /** Admin kubeconfig YAML (system:masters, client certificate), the `value` of the kubeconfig Secret. */
  readonly kubeconfig: string;
  /** The `<name>-kubeconfig` Secret in CAPI's format, for the given namespace of the management cluster. */
  kubeconfigSecret(namespace: string, clusterName?: string): KubeObject;
  /** Where the apiserver dials Nodes' kubelets. */
  readonly nodeNetwork: NodeNetwork;
  /** Running etcd members of this cluster's own etcd, by member (Node) name. */
  readonly etcdMembers: ReadonlyMap<string, EtcdMember>;
  /** Starts a member (see etcd-member.ts); one per name. */
  startEtcdMember(options: Pick<EtcdMemberOptions, 'name' | 'tls' | 'join'>): Promise<EtcdMember>;
  stopEtcdMember(name: string): Promise<void>;
  /** Stops the etcd members, the apiserver and the node network. */
  stop(): Promise<void>;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export async function startWorkloadCluster(options: {
  name: string;
  binary: string;
  etcdUrl: string;
  authorities: Authorities;
  dir: string;
  timeoutMs: number;
  /** The etcd binary, for the cluster's own etcd members. */
  etcdBinary: string;
  /** Called when a process of this cluster started or stopped (the environment's watchdog). */
  onProcesses?: () => void;
}): Promise<WorkloadCluster> {
  const { name } = options;
  if (!DNS_LABEL.test(name)) throw new EnvtestError(`workload cluster name must be a DNS label, got ${JSON.stringify(name)}`);
  const clientCa = issueCertificate({ commonName: `${name}-ca`, organizations: ['metal3-ts'], usage: 'ca', days: 365 });
  const authorities: Authorities = { ...options.authorities, clientCa };
  const dir = join(options.dir, `workload-${name}`);
  mkdirSync(dir, { recursive: true });
  // Beside the directory, short: a unix socket path must fit 107 bytes, a workload name may be 63.
  const nodeNetwork = await startNodeNetwork(join(options.dir, `nodes-${createHash('sha256').update(name).digest('hex').slice(0, 10)}.sock`));
  const egressConfig = join(dir, 'egress-selector.yaml');
  writeEgressSelectorConfig(egressConfig, nodeNetwork.socketPath);
  const apiserverStarting = startApiServer({
    name,
    binary: options.binary,
    etcdUrl: options.etcdUrl,
    // Keys become /workload/<name>/<resource>/...; the management cluster uses /registry/..., so no
    // prefix is a string prefix of another once the separating slash is added.
    etcdPrefix: `/workload/${name}`,
    authorities,
    dir,
    authorization: 'RBAC',
    timeoutMs: options.timeoutMs,
    // etcd compaction is keyspace-wide; the management apiserver already does it.
    compaction: false,
    // Exec, logs and port-forward (KCP's etcd client) must not dial a Node's InternalIP, which the
    // simulated kubelets copy from the hosts' NICs (lab addresses, not ours): the apiserver dials the
    // Node's name, through the node network, which knows the simulated kubelets by name.
    extraArgs: ['--kubelet-preferred-address-types=Hostname', `--egress-selector-config-file=${egressConfig}`],
  });
  const apiserver = await apiserverStarting.catch(async (error: unknown) => {
    await nodeNetwork.close();
    throw error;
  });
  const members = new Map<string, EtcdMember>();
  const stopMember = async (member: EtcdMember) => {
    if (members.get(member.name) === member) members.delete(member.name);
    await member.stop();
    options.onProcesses?.();
  };
  // The admin's name, as the management cluster's: a client must keep same-named users apart.
  const admin = clientCertificate(authorities, apiserver.admin.user, ['system:masters'], KUBECONFIG_CERT_DAYS);
  const kubeconfig = kubeconfigYaml(name, apiserver.server, apiserver.admin.caPem, {
    user: apiserver.admin.user,
    groups: ['system:masters'],
    certPem: admin.certPem,
    keyPem: admin.keyPem,
  });
  return {
    name,
    apiserver,
    server: apiserver.server,
    kubeconfig,
    kubeconfigSecret(namespace, clusterName = name) {
      return {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `${clusterName}-kubeconfig`,
          namespace,
          labels: { 'cluster.x-k8s.io/cluster-name': clusterName },
        },
        type: 'cluster.x-k8s.io/secret',
        data: { value: Buffer.from(kubeconfig, 'utf8').toString('base64') },
      };
    },
    nodeNetwork,
    etcdMembers: members,
    async startEtcdMember(member) {
      if (members.has(member.name)) throw new EnvtestError(`etcd member ${member.name} of workload cluster ${name} already runs`);
      const started = await startEtcdMember({ ...member, binary: options.etcdBinary, dir: join(dir, `etcd-${member.name}`), timeoutMs: options.timeoutMs });
      members.set(member.name, started);
      // A member removed from the cluster exits on its own: forget it.
      void started.process.exited.then(() => members.get(member.name) === started && members.delete(member.name));
      options.onProcesses?.();
      return started;
    },
    async stopEtcdMember(memberName) {
      const member = members.get(memberName);
      if (member) await stopMember(member);
    },
    async stop() {
      await Promise.all([...members.values()].map(stopMember));
      await apiserver.stop();
      await nodeNetwork.close();
    },
  };
}
