// Workload clusters: extra kube-apiservers that stand in for the clusters CAPI provisions. Each shares
// the environment's etcd under its own prefix (disjoint object spaces, one process fewer than a second
// etcd) and hands out a kubeconfig ready to be stored as the `<cluster>-kubeconfig` Secret, which is
// how CAPI controllers (and ours) reach a workload cluster.
import { join } from 'node:path';
import { startApiServer, type ApiServer } from './apiserver.ts';
import { EnvtestError } from './errors.ts';
import type { KubeObject } from './http.ts';
import type { Authorities } from './pki.ts';

export interface WorkloadCluster {
  readonly name: string;
  readonly apiserver: ApiServer;
  /** Admin kubeconfig YAML (system:masters, static token), the `value` of the kubeconfig Secret. */
  readonly kubeconfig: string;
  /** The `<name>-kubeconfig` Secret in CAPI's format, for the given namespace of the management cluster. */
  kubeconfigSecret(namespace: string, clusterName?: string): KubeObject;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export async function startWorkloadCluster(options: {
  name: string;
  binary: string;
  etcdUrl: string;
  authorities: Authorities;
  dir: string;
  timeoutMs: number;
}): Promise<WorkloadCluster> {
  const { name } = options;
  if (!DNS_LABEL.test(name)) throw new EnvtestError(`workload cluster name must be a DNS label, got ${JSON.stringify(name)}`);
  const apiserver = await startApiServer({
    name,
    binary: options.binary,
    etcdUrl: options.etcdUrl,
    // Keys become /workload/<name>/<resource>/...; the management cluster uses /registry/..., so no
    // prefix is a string prefix of another once the separating slash is added.
    etcdPrefix: `/workload/${name}`,
    authorities: options.authorities,
    dir: join(options.dir, `workload-${name}`),
    authorization: 'RBAC',
    timeoutMs: options.timeoutMs,
    // etcd compaction is keyspace-wide; the management apiserver already does it.
    compaction: false,
  });
  const kubeconfig = apiserver.admin.kubeconfig;
  return {
    name,
    apiserver,
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
  };
}
