// One name for one concept: a *synced Node* is the workload Node a host's labels go to. This module is
// what the controller knows about them: which host targets which Node (registered by the reconcile),
// the Node labels last seen (from the Node watch, a GET or our own patch's response), and the event
// source that wakes a host when its Node's labels change in the workload cluster (drift reverted at
// once, where upstream re-syncs every 60 s, LS-7). A cluster's Nodes are watched (NodeWatches) while
// any host targets a Node there; heartbeats and status updates do not change labels, so they wake
// nothing, and a host whose Node already agrees costs no request (the 0-requests-when-quiet rule).
import type { Client } from '@metal3-ts/generated';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type Request, requestFromKey } from '@metal3-ts/shared/reconcile/reconcile';
import { type ClusterKey, clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { NodeWatches, type NodeWatchesOptions } from '@metal3-ts/shared/workload/node-watch';

type Labels = Readonly<Record<string, string>>;

interface Target {
  readonly cluster: string;
  readonly clusterKey: ClusterKey;
  readonly node: string;
}

const sameLabels = (a: Labels | undefined, b: Labels | undefined): boolean => {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => b?.[k] === a?.[k]);
};

export class SyncedNodes {
  readonly #watches: NodeWatches;
  /** host request key → the Node it targets. */
  readonly #targets = new Map<string, Target>();
  /** cluster key → node name → labels last seen. */
  readonly #labels = new Map<string, Map<string, Labels>>();
  /** cluster key → the client its watch runs through. */
  readonly #clients = new Map<string, Client>();
  #enqueue: ((request: Request) => void) | undefined;

  constructor(options: Omit<NodeWatchesOptions, 'log'> & { readonly log?: Logger | undefined } = {}) {
    const { log, ...watchOptions } = options;
    this.#watches = new NodeWatches((cluster, node, deleted) => this.#seen(clusterKeyString(cluster), node, deleted), {
      ...watchOptions,
      ...(log ? { log } : {}),
    });
  }

  /** `host` (a request key) syncs to Node `node` of `cluster`. */
  target(host: string, cluster: ClusterKey, node: string): void {
    const key = clusterKeyString(cluster);
    this.#targets.set(host, { cluster: key, clusterKey: cluster, node });
    // A watch released but not yet stopped (idle) is kept on: ensure() with its own client cancels the stop.
    const client = this.#clients.get(key);
    if (client && this.#watches.has(cluster)) this.#watches.ensure(cluster, client);
  }

  /** `host` syncs to no Node (no consumer, no nodeRef, paused, no prefixes…); a cluster nobody targets is unwatched. */
  forget(host: string): void {
    const target = this.#targets.get(host);
    if (!target) return;
    this.#targets.delete(host);
    if ([...this.#targets.values()].some((t) => t.cluster === target.cluster)) return;
    this.#labels.delete(target.cluster);
    this.#clients.delete(target.cluster);
    this.#watches.release(target.clusterKey);
  }

  /**
   * The client `cluster`'s Nodes are watched through, while the watch runs and no request through it
   * failed since (else the reconcile asks the ClusterCache, which reads the kubeconfig Secret and
   * probes, and restarts the watch with what it gets). Reusing it spares a Secret GET per sync.
   */
  clientOf(cluster: ClusterKey): Client | undefined {
    return this.#watches.has(cluster) ? this.#clients.get(clusterKeyString(cluster)) : undefined;
  }

  /** A request through the cluster's client failed: the next reconcile gets a client from the ClusterCache again. */
  distrust(cluster: ClusterKey): void {
    this.#clients.delete(clusterKeyString(cluster));
  }

  /** Keeps `cluster`'s Nodes watched through `client` (restarted when the ClusterCache rebuilt the client). */
  watch(cluster: ClusterKey, client: Client): void {
    this.#clients.set(clusterKeyString(cluster), client);
    this.#watches.ensure(cluster, client);
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

  /** For the controller builder's watchesRawSource; its unsubscribe stops every watch. */
  readonly source: EventSource = {
    kind: 'Node',
    waitForSync: async () => {},
    subscribe: (deliver) => {
      this.#enqueue = deliver;
      return () => {
        this.#enqueue = undefined;
        void this.#watches.close();
      };
    },
  };

  #store(cluster: string, node: string, labels: Labels): boolean {
    let nodes = this.#labels.get(cluster);
    if (!nodes) this.#labels.set(cluster, nodes = new Map());
    const changed = !sameLabels(nodes.get(node), labels);
    nodes.set(node, labels);
    return changed;
  }

  #seen(cluster: string, node: Readonly<Node>, deleted: boolean): void {
    const name = node.metadata.name ?? '';
    let changed: boolean;
    if (deleted) {
      changed = this.#labels.get(cluster)?.delete(name) ?? false;
    } else {
      changed = this.#store(cluster, name, node.metadata.labels ?? {});
    }
    if (!changed) return;
    for (const [host, target] of this.#targets) if (target.cluster === cluster && target.node === name) this.#enqueue?.(requestFromKey(host));
  }
}
