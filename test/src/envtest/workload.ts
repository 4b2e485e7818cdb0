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
// Clients reach it through a front door (front-door.ts) on a port known before the apiserver starts,
// so the kubeconfig exists from the first moment: `onKubeconfig` gets it while the apiserver is still
// starting (the workload simulator writes the Secret then), and a client connecting meanwhile is held
// rather than refused.
//
// Its kubelet traffic (port-forward, exec, logs) goes through a node network of its own
// (node-network.ts), where simulated kubelets attach under their Node names; its control-plane
// Nodes may run etcd members (etcd-member.ts), which stop with it.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, type ApiServer, startApiServer } from './apiserver.ts';
import { EnvtestError } from './errors.ts';
import { type EtcdMember, type EtcdMemberOptions, startEtcdMember } from './etcd-member.ts';
import { type FrontDoor, openFrontDoor } from './front-door.ts';
import type { KubeObject } from './http.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { type NodeNetwork, startNodeNetwork, writeEgressSelectorConfig } from './node-network.ts';
import { type Authorities, clientCertificate, issueCertificate } from './pki.ts';

/** Validity of the kubeconfig's client certificate: longer than KCP's renewal window (182.5 days). */
const KUBECONFIG_CERT_DAYS = 365;

export interface WorkloadCluster {
  readonly name: string;
  readonly apiserver: ApiServer;
  /** Where the kubeconfig points: the front door, piped to the apiserver (`apiserver.server` is direct). */
  readonly server: string;
  /**
   * Admin kubeconfig YAML (system:masters, client certificate, the front door's address), the `value`
   * of the kubeconfig Secret.
   */
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
  /** Stops the etcd members, the apiserver, its front door and the node network. */
  stop(): Promise<void>;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface WorkloadClusterOptions {
  /**
   * Called with the kubeconfig as soon as it is known, before the apiserver is ready (awaited with its
   * start; a rejection stops the apiserver and fails the start).
   */
  readonly onKubeconfig?: (kubeconfig: string) => Promise<void>;
}

/** What the environment gives every workload cluster for its etcd members. */
export interface WorkloadMemberOptions {
  /** The etcd binary, for the cluster's own etcd members. */
  readonly etcdBinary: string;
  /** Called when a process of this cluster started or stopped (the environment's watchdog). */
  readonly onProcesses?: (() => void) | undefined;
}

export interface WorkloadLaunchOptions {
  /** Names its etcd prefix and directory; the cluster's name may differ when a spare is taken (env.ts). */
  readonly id: string;
  readonly binary: string;
  readonly etcdUrl: string;
  readonly authorities: Authorities;
  readonly dir: string;
  readonly timeoutMs: number;
}

/** A workload apiserver on its way up: its front door and client CA exist, the process is starting. */
export interface LaunchedWorkload {
  readonly id: string;
  readonly etcdPrefix: string;
  readonly door: FrontDoor;
  readonly nodeNetwork: NodeNetwork;
  readonly authorities: Authorities;
  readonly dir: string;
  readonly starting: Promise<ApiServer>;
}

export const etcdPrefixOf = (id: string): string => `/workload/${id}`;

/** Opens the front door and starts the apiserver; `starting` settles when it serves (or failed). */
export async function launchWorkloadApiserver(options: WorkloadLaunchOptions, etcdPrefix = etcdPrefixOf(options.id)): Promise<LaunchedWorkload> {
  const { id } = options;
  if (!DNS_LABEL.test(id)) throw new EnvtestError(`workload cluster name must be a DNS label, got ${JSON.stringify(id)}`);
  const clientCa = issueCertificate({ commonName: `${id}-ca`, organizations: ['metal3-ts'], usage: 'ca', days: 365 });
  const authorities: Authorities = { ...options.authorities, clientCa };
  const dir = join(options.dir, `workload-${id}`);
  mkdirSync(dir, { recursive: true });
  // Beside the directory, short: a unix socket path must fit 107 bytes, a workload name may be 63.
  const nodeNetwork = await startNodeNetwork(join(options.dir, `nodes-${createHash('sha256').update(id).digest('hex').slice(0, 10)}.sock`));
  const egressConfig = join(dir, 'egress-selector.yaml');
  writeEgressSelectorConfig(egressConfig, nodeNetwork.socketPath);
  const door = await openFrontDoor();
  const starting = startApiServer({
    name: id,
    binary: options.binary,
    etcdUrl: options.etcdUrl,
    // Keys become /workload/<id>/<resource>/...; the management cluster uses /registry/..., so no
    // prefix is a string prefix of another once the separating slash is added.
    etcdPrefix,
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
  starting.catch(async () => {
    await door.close();
    await nodeNetwork.close();
  });
  return { id, etcdPrefix, door, nodeNetwork, authorities, dir, starting };
}

/** Names a launched apiserver `name`: its kubeconfig (given to onKubeconfig at once), then waits until it serves. */
export async function workloadClusterFrom(
  name: string,
  launched: LaunchedWorkload,
  members: WorkloadMemberOptions & { readonly timeoutMs: number },
  options: WorkloadClusterOptions = {},
): Promise<WorkloadCluster> {
  const { door, nodeNetwork, authorities } = launched;
  const server = `https://127.0.0.1:${door.port}`;
  // The admin's name, as the management cluster's: a client must keep same-named users apart.
  const admin = clientCertificate(authorities, ADMIN.user, ['system:masters'], KUBECONFIG_CERT_DAYS);
  const kubeconfig = kubeconfigYaml(name, server, authorities.servingCa.certPem, {
    user: ADMIN.user,
    groups: ['system:masters'],
    certPem: admin.certPem,
    keyPem: admin.keyPem,
  });
  const told = options.onKubeconfig?.(kubeconfig);
  const [started, toldResult] = await Promise.allSettled([launched.starting, told]);
  if (started.status === 'rejected') throw started.reason; // door and node network closed by the launch
  const apiserver = started.value;
  const running = new Map<string, EtcdMember>();
  const stopMember = async (member: EtcdMember) => {
    if (running.get(member.name) === member) running.delete(member.name);
    await member.stop();
    members.onProcesses?.();
  };
  const stop = async () => {
    await Promise.all([...running.values()].map(stopMember));
    await door.close();
    await apiserver.stop();
    await nodeNetwork.close();
  };
  if (toldResult.status === 'rejected') {
    await stop();
    throw toldResult.reason;
  }
  door.open(Number(new URL(apiserver.server).port));
  return {
    name,
    apiserver,
    server,
    kubeconfig,
    stop,
    nodeNetwork,
    etcdMembers: running,
    async startEtcdMember(member) {
      if (running.has(member.name)) throw new EnvtestError(`etcd member ${member.name} of workload cluster ${name} already runs`);
      const started = await startEtcdMember({
        ...member,
        binary: members.etcdBinary,
        dir: join(launched.dir, `etcd-${member.name}`),
        timeoutMs: members.timeoutMs,
      });
      running.set(member.name, started);
      // A member removed from the cluster exits on its own: forget it.
      void started.process.exited.then(() => running.get(member.name) === started && running.delete(member.name));
      members.onProcesses?.();
      return started;
    },
    async stopEtcdMember(memberName) {
      const member = running.get(memberName);
      if (member) await stopMember(member);
    },
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
  };
}

export async function startWorkloadCluster(
  options: WorkloadClusterOptions & WorkloadMemberOptions & {
    name: string;
    binary: string;
    etcdUrl: string;
    authorities: Authorities;
    dir: string;
    timeoutMs: number;
  },
): Promise<WorkloadCluster> {
  return workloadClusterFrom(options.name, await launchWorkloadApiserver({ ...options, id: options.name }), options, options);
}
