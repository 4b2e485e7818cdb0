// One name for one concept: a *synced Node* is the workload Node a host's labels go to. This module is
// what the controller knows about them beyond a wait: the Node labels last seen (from the Node watch, a
// GET or our own patch's response). Which host targets which Node, the cluster's Node watch while any
// host targets a Node there, the client it runs through and the event source are a keyed wait
// (shared/workload/node-waits.ts, the key a Node's name); what is labelsync's own is that every Node
// event is looked at, and only one that changes a Node's labels wakes its host: drift is reverted at
// once, where upstream re-syncs every 60 s (LS-7), while heartbeats and status updates wake nothing,
// and a host whose Node already agrees costs no request (the 0-requests-when-quiet rule).
import type { Client } from '@metal3-ts/generated';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import { type ClusterKey, clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { NodeWaits, type NodeWaitsOptions } from '@metal3-ts/shared/workload/node-waits';

type Labels = Readonly<Record<string, string>>;

const sameLabels = (a: Labels | undefined, b: Labels | undefined): boolean => {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => b?.[k] === a?.[k]);
};

export class SyncedNodes {
  /** host request key → the Node (by name) it targets, and the cluster's watch and client. */
  readonly #waits: NodeWaits;
  /** cluster key → node name → labels last seen. */
  readonly #labels = new Map<string, Map<string, Labels>>();
  /** For the controller builder's watchesRawSource; its unsubscribe stops every watch. */
  readonly source: EventSource;

  constructor(options: Omit<NodeWaitsOptions, 'nodeKeys' | 'observe'> = {}) {
    this.#waits = new NodeWaits({ ...options, observe: (cluster, node, deleted) => this.#seen(clusterKeyString(cluster), node, deleted) });
    this.source = this.#waits.source;
  }

  /** `host` (a request key) syncs to Node `node` of `cluster`; a watch released but not yet stopped (idle) is kept on. */
  target(host: string, cluster: ClusterKey, node: string): void {
    this.#waits.wait(host, cluster, [node]);
  }

  /** `host` syncs to no Node (no consumer, no nodeRef, paused, no prefixes…); a cluster nobody targets is unwatched. */
  forget(host: string): void {
    const idle = this.#waits.forget(host);
    if (idle) this.#labels.delete(clusterKeyString(idle));
  }

  /**
   * The client `cluster`'s Nodes are watched through, while the watch runs and no request through it
   * failed since (else the reconcile asks the ClusterCache, which reads the kubeconfig Secret and
   * probes, and restarts the watch with what it gets). Reusing it spares a Secret GET per sync.
   */
  clientOf(cluster: ClusterKey): Client | undefined {
    return this.#waits.clientOf(cluster);
  }

  /** A request through the cluster's client failed: the next reconcile gets a client from the ClusterCache again. */
  distrust(cluster: ClusterKey): void {
    this.#waits.distrust(cluster);
  }

  /** Keeps `cluster`'s Nodes watched through `client` (restarted when the ClusterCache rebuilt the client). */
  watch(cluster: ClusterKey, client: Client): void {
    this.#waits.watch(cluster, client);
  }

  /** The labels of the Node last seen; undefined when it has not been seen (or was deleted). */
  labelsOf(cluster: ClusterKey, node: string): Labels | undefined {
    return this.#labels.get(clusterKeyString(cluster))?.get(node);
  }

  /** A Node read or written by the reconcile (a GET, our patch's response). */
  note(cluster: ClusterKey, node: Readonly<Node>): void {
    this.#store(clusterKeyString(cluster), node.metadata.name ?? '', node.metadata.labels ?? {});
  }

  /** The Node is gone (a 404): forget its labels until it registers again. */
  gone(cluster: ClusterKey, node: string): void {
    this.#labels.get(clusterKeyString(cluster))?.delete(node);
  }

  #store(cluster: string, node: string, labels: Labels): boolean {
    let nodes = this.#labels.get(cluster);
    if (!nodes) this.#labels.set(cluster, nodes = new Map());
    const changed = !sameLabels(nodes.get(node), labels);
    nodes.set(node, labels);
    return changed;
  }

  /** Every Node event of a watched cluster: remembered; only a change of labels wakes the hosts targeting the Node. */
  #seen(cluster: string, node: Readonly<Node>, deleted: boolean): boolean {
    const name = node.metadata.name ?? '';
    if (deleted) return this.#labels.get(cluster)?.delete(name) ?? false;
    return this.#store(cluster, name, node.metadata.labels ?? {});
  }
}
