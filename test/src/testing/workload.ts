// A workload cluster's Nodes as a test reads them: through a ClusterCache built from the Cluster's
// `<cluster>-kubeconfig` Secret, as a controller reaches them, closed again after the read.
import type { Client } from '@metal3-ts/generated';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';

/** The Nodes of `cluster`'s workload cluster, read through `client`'s view of its kubeconfig Secret. */
export async function workloadNodes(client: Client, cluster: ClusterKey): Promise<Node[]> {
  const cache = new ClusterCache(client, { closeGraceMs: 50 });
  try {
    return (await (await cache.get(cluster)).api(NodeResource).list()).items;
  } finally {
    cache.close();
  }
}
