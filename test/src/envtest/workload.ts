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
import { join } from 'node:path';
import { ADMIN, type ApiServer, startApiServer } from './apiserver.ts';
import { EnvtestError } from './errors.ts';
import { type FrontDoor, openFrontDoor } from './front-door.ts';
import type { KubeObject } from './http.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
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
  /** Stops the apiserver and closes its front door. */
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
  readonly authorities: Authorities;
  readonly starting: Promise<ApiServer>;
}

export const etcdPrefixOf = (id: string): string => `/workload/${id}`;

/** Opens the front door and starts the apiserver; `starting` settles when it serves (or failed). */
export async function launchWorkloadApiserver(options: WorkloadLaunchOptions, etcdPrefix = etcdPrefixOf(options.id)): Promise<LaunchedWorkload> {
  const { id } = options;
  if (!DNS_LABEL.test(id)) throw new EnvtestError(`workload cluster name must be a DNS label, got ${JSON.stringify(id)}`);
  const clientCa = issueCertificate({ commonName: `${id}-ca`, organizations: ['metal3-ts'], usage: 'ca', days: 365 });
  const authorities: Authorities = { ...options.authorities, clientCa };
  const door = await openFrontDoor();
  const starting = startApiServer({
    name: id,
    binary: options.binary,
    etcdUrl: options.etcdUrl,
    // Keys become /workload/<id>/<resource>/...; the management cluster uses /registry/..., so no
    // prefix is a string prefix of another once the separating slash is added.
    etcdPrefix,
    authorities,
    dir: join(options.dir, `workload-${id}`),
    authorization: 'RBAC',
    timeoutMs: options.timeoutMs,
    // etcd compaction is keyspace-wide; the management apiserver already does it.
    compaction: false,
    // Nothing here runs a kubelet: exec, logs and port-forward (KCP's etcd client) must not dial a Node's
    // InternalIP, which the simulated kubelets copy from the hosts' NICs (lab addresses, not ours).
    // The Hostname address is the node name, which resolves nowhere, so such calls fail fast.
    extraArgs: ['--kubelet-preferred-address-types=Hostname'],
  });
  starting.catch(() => door.close());
  return { id, etcdPrefix, door, authorities, starting };
}

/** Names a launched apiserver `name`: its kubeconfig (given to onKubeconfig at once), then waits until it serves. */
export async function workloadClusterFrom(name: string, launched: LaunchedWorkload, options: WorkloadClusterOptions = {}): Promise<WorkloadCluster> {
  const { door, authorities } = launched;
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
  if (started.status === 'rejected') {
    await door.close();
    throw started.reason;
  }
  const apiserver = started.value;
  const stop = async () => {
    await door.close();
    await apiserver.stop();
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
  options: WorkloadClusterOptions & { name: string; binary: string; etcdUrl: string; authorities: Authorities; dir: string; timeoutMs: number },
): Promise<WorkloadCluster> {
  return workloadClusterFrom(options.name, await launchWorkloadApiserver({ ...options, id: options.name }), options);
}
