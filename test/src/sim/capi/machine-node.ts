// The Machine simulator's view of a workload cluster's Nodes, through the harness's ClusterCache
// (`<cluster>-kubeconfig` Secret). CAPI watches Nodes through its ClusterCache; the simulator asks
// when it needs to (the Machine controller polls while it waits for a Node).
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { NodeResource } from '@metal3-ts/generated/core/v1';
import type { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { type ClusterKey, ClusterNotReachableError, InvalidKubeconfigSecretError, KubeconfigSecretNotFoundError } from '@metal3-ts/shared/workload/errors';
import type { NodeLookup } from './machine-status.ts';

/** The workload cluster cannot be reached yet: no kubeconfig, a broken one, or no answer. */
function isUnreachable(error: unknown): boolean {
  return error instanceof KubeconfigSecretNotFoundError || error instanceof InvalidKubeconfigSecretError || error instanceof ClusterNotReachableError;
}

export class WorkloadNodes {
  readonly #cache: ClusterCache;

  constructor(cache: ClusterCache) {
    this.#cache = cache;
  }

  /**
   * The Node whose `spec.providerID` equals `providerID` (exact match, as CAPI's index), or
   * undefined when the workload cluster cannot be asked.
   */
  async find(cluster: ClusterKey, providerID: string, signal: AbortSignal): Promise<NodeLookup | undefined> {
    try {
      const client = await this.#cache.get(cluster, { signal });
      const nodes = await client.api(NodeResource).list({ signal });
      return { node: nodes.items.find((n) => n.spec?.providerID === providerID) };
    } catch (error) {
      if (isUnreachable(error)) return undefined;
      throw error;
    }
  }

  /**
   * Deletes the Node. As CAPI's deleteNode: a workload cluster without a usable client is not retried
   * ('unreachable'); a Node already gone is success; any other failure throws (retried until the
   * Machine's nodeDeletionTimeout).
   */
  async delete(cluster: ClusterKey, name: string, signal: AbortSignal): Promise<'deleted' | 'unreachable'> {
    let client;
    try {
      client = await this.#cache.get(cluster, { signal });
    } catch (error) {
      if (isUnreachable(error)) return 'unreachable';
      throw error;
    }
    try {
      await client.api(NodeResource).delete(name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return 'deleted';
  }
}
