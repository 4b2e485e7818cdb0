// Why a workload cluster client could not be had. Reconcilers usually requeue on all three; the kind
// says whether waiting helps (not reachable: the control plane may come up) or someone must act
// (a Secret missing or malformed).

/** A Cluster API Cluster: its namespace in the management cluster and its name. */
export interface ClusterKey {
  readonly namespace: string;
  readonly name: string;
}

export const clusterKeyString = (c: ClusterKey): string => `${c.namespace}/${c.name}`;

/** Cluster API's name for the Secret holding a workload cluster's admin kubeconfig (key `value`). */
export const kubeconfigSecretName = (clusterName: string): string => `${clusterName}-kubeconfig`;

export class KubeconfigSecretNotFoundError extends Error {
  override name = 'KubeconfigSecretNotFoundError';
  readonly cluster: ClusterKey;

  constructor(cluster: ClusterKey) {
    super(`workload cluster ${clusterKeyString(cluster)}: Secret ${cluster.namespace}/${kubeconfigSecretName(cluster.name)} not found`);
    this.cluster = cluster;
  }
}

/** The Secret exists but holds no usable kubeconfig (missing key, bad YAML, unsupported auth). */
export class InvalidKubeconfigSecretError extends Error {
  override name = 'InvalidKubeconfigSecretError';
  readonly cluster: ClusterKey;

  constructor(cluster: ClusterKey, reason: string, cause?: unknown) {
    super(
      `workload cluster ${clusterKeyString(cluster)}: Secret ${cluster.namespace}/${kubeconfigSecretName(cluster.name)}: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
    this.cluster = cluster;
  }
}

/**
 * The workload apiserver did not answer (refused, timed out, TLS failure, 5xx) or refused the
 * credentials (401) when probed. Cluster API calls this ErrClusterNotConnected; requeue and retry.
 */
export class ClusterNotReachableError extends Error {
  override name = 'ClusterNotReachableError';
  readonly cluster: ClusterKey;

  constructor(cluster: ClusterKey, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`workload cluster ${clusterKeyString(cluster)} is not reachable: ${detail}`, { cause });
    this.cluster = cluster;
  }
}

export const isClusterNotReachable = (e: unknown): e is ClusterNotReachableError => e instanceof ClusterNotReachableError;
