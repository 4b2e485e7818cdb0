// Keyed waits on workload Nodes: the one way a controller turns workload Node events into its own
// requests. A *waiter* (a request key of the controller) waits in one workload cluster for a Node
// showing any of its *wait keys* (a Node name, a provider ID…); the cluster's Nodes are watched
// (NodeWatches, the transport) while anyone waits there, and a Node event wakes exactly the waiters
// of the keys that Node shows, found through an index, whatever the size of the workload cluster.
// Forgetting the last waiter of a cluster releases its watch (stopped after the idle time). What
// stays with each controller is what is really its own: the keys it waits on, the keys a Node shows
// (`nodeKeys`, by default its name) and which events matter at all (`observe`). Nothing here reads
// the apiserver: a wait costs one list and watch per workload cluster, shared by all its waiters,
// whose Nodes a waiter may read (`nodes`) rather than list them itself.
// A Node deleted while no watch ran (a rebuilt client's watch lists after the delete) is told by no
// event, so each list also wakes the cluster's waiters none of whose keys it shows: a waiter for a
// Node to go away is never left waiting on an event that cannot come.
import type { Client } from '@metal3-ts/generated';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { EventSource } from '../controller/source.ts';
import type { Logger } from '../log/logger.ts';
import { type Request, requestFromKey } from '../reconcile/reconcile.ts';
import { type ClusterKey, clusterKeyString } from './errors.ts';
import { NodeWatches, type NodeWatchesOptions } from './node-watch.ts';

/** The wait keys a Node shows by default: its name. */
export const byNodeName = (node: Readonly<Node>): readonly string[] => (node.metadata.name ? [node.metadata.name] : []);

interface Wait {
  readonly cluster: ClusterKey;
  readonly keys: readonly string[];
}

/** Who waits for which keys in which cluster: pure bookkeeping, indexed per cluster by wait key. */
export class WaitIndex {
  readonly #waits = new Map<string, Wait>();
  /** cluster key → its waiters, and wait key → waiters (a waiter may wait for no key yet: it still holds the cluster). */
  readonly #clusters = new Map<string, { readonly waiters: Set<string>; readonly byKey: Map<string, Set<string>> }>();

  /** Records (or replaces) what `waiter` waits for; returns the cluster it waited in before if nobody waits there now. */
  wait(waiter: string, cluster: ClusterKey, keys: readonly string[]): ClusterKey | undefined {
    const before = this.#remove(waiter);
    const wait = { cluster, keys: keys.filter((key) => key !== '') };
    this.#waits.set(waiter, wait);
    const clusterKey = clusterKeyString(cluster);
    let entry = this.#clusters.get(clusterKey);
    if (!entry) this.#clusters.set(clusterKey, entry = { waiters: new Set(), byKey: new Map() });
    entry.waiters.add(waiter);
    for (const key of wait.keys) {
      let waiters = entry.byKey.get(key);
      if (!waiters) entry.byKey.set(key, waiters = new Set());
      waiters.add(waiter);
    }
    return before && !this.#clusters.has(clusterKeyString(before)) ? before : undefined;
  }

  /** `waiter` waits no more; returns the cluster it waited in if nobody waits there now. */
  forget(waiter: string): ClusterKey | undefined {
    const before = this.#remove(waiter);
    return before && !this.#clusters.has(clusterKeyString(before)) ? before : undefined;
  }

  /** The waiters that a Node of `cluster` showing `keys` may end. */
  waitingFor(cluster: ClusterKey, keys: readonly string[]): string[] {
    const byKey = this.#clusters.get(clusterKeyString(cluster))?.byKey;
    if (!byKey) return [];
    const found = new Set<string>();
    for (const key of keys) for (const waiter of byKey.get(key) ?? []) found.add(waiter);
    return [...found];
  }

  /** The waiters of `cluster` none of whose keys is in `shown` (keyless waiters included). */
  waitingWithout(cluster: ClusterKey, shown: ReadonlySet<string>): string[] {
    const entry = this.#clusters.get(clusterKeyString(cluster));
    if (!entry) return [];
    return [...entry.waiters].filter((waiter) => !(this.#waits.get(waiter)?.keys ?? []).some((key) => shown.has(key)));
  }

  /** Waiters now. */
  get size(): number {
    return this.#waits.size;
  }

  #remove(waiter: string): ClusterKey | undefined {
    const wait = this.#waits.get(waiter);
    if (!wait) return undefined;
    this.#waits.delete(waiter);
    const clusterKey = clusterKeyString(wait.cluster);
    const entry = this.#clusters.get(clusterKey);
    if (!entry) return wait.cluster;
    entry.waiters.delete(waiter);
    for (const key of wait.keys) {
      const waiters = entry.byKey.get(key);
      waiters?.delete(waiter);
      if (waiters?.size === 0) entry.byKey.delete(key);
    }
    if (entry.waiters.size === 0) this.#clusters.delete(clusterKey);
    return wait.cluster;
  }
}

export interface NodeWaitsOptions extends Omit<NodeWatchesOptions, 'log' | 'onList'> {
  readonly log?: Logger | undefined;
  /** The wait keys a Node shows (default: its name). */
  readonly nodeKeys?: (node: Readonly<Node>) => readonly string[];
  /** Sees every Node event of a watched cluster first; false: the event wakes nobody. */
  readonly observe?: (cluster: ClusterKey, node: Readonly<Node>, deleted: boolean) => boolean;
}

/** Keyed waits on workload Nodes and the EventSource their Node events feed. */
export class NodeWaits {
  readonly #index = new WaitIndex();
  readonly #watches: NodeWatches;
  /** cluster key → the client its watch runs through (until a request through it failed). */
  readonly #clients = new Map<string, Client>();
  #enqueue: ((request: Request) => void) | undefined;

  constructor(options: NodeWaitsOptions = {}) {
    const { log, nodeKeys = byNodeName, observe, ...watchOptions } = options;
    const onList = (cluster: ClusterKey, nodes: readonly Readonly<Node>[]) => {
      const shown = new Set(nodes.flatMap((node) => nodeKeys(node)));
      for (const waiter of this.#index.waitingWithout(cluster, shown)) this.#enqueue?.(requestFromKey(waiter));
    };
    this.#watches = new NodeWatches((cluster, node, deleted) => {
      if (observe && !observe(cluster, node, deleted)) return;
      for (const waiter of this.#index.waitingFor(cluster, nodeKeys(node))) this.#enqueue?.(requestFromKey(waiter));
    }, { ...watchOptions, onList, ...(log ? { log } : {}) });
  }

  /**
   * `waiter` waits in `cluster` for a Node showing one of `keys` (replacing what it waited for).
   * The cluster's Nodes are watched through `client`; without one, a watch still running (perhaps
   * released, not yet stopped) is kept on through its own client, and none is started.
   */
  wait(waiter: string, cluster: ClusterKey, keys: readonly string[], client?: Client): void {
    const left = this.#index.wait(waiter, cluster, keys);
    if (left) this.#release(left);
    if (client) this.watch(cluster, client);
    else {
      const running = this.clientOf(cluster);
      if (running) this.#watches.ensure(cluster, running);
    }
  }

  /** `waiter` waits for no Node any more; returns its cluster if nobody waits there now (its watch is released). */
  forget(waiter: string): ClusterKey | undefined {
    const idle = this.#index.forget(waiter);
    if (idle) this.#release(idle);
    return idle;
  }

  /** Keeps `cluster`'s Nodes watched through `client` (a different client than the running watch's restarts it). */
  watch(cluster: ClusterKey, client: Client): void {
    this.#clients.set(clusterKeyString(cluster), client);
    this.#watches.ensure(cluster, client);
  }

  /** The client `cluster`'s Nodes are watched through, while the watch runs and nobody distrusted it since. */
  clientOf(cluster: ClusterKey): Client | undefined {
    return this.#watches.has(cluster) ? this.#clients.get(clusterKeyString(cluster)) : undefined;
  }

  /** The cluster's Nodes as its watch through `client` has seen them, once listed (NodeWatches.nodes). */
  nodes(cluster: ClusterKey, client: Client): readonly Readonly<Node>[] | undefined {
    return this.#watches.nodes(cluster, client);
  }

  /** A request through the cluster's client failed: clientOf gives it no more (the next watch() brings a new one). */
  distrust(cluster: ClusterKey): void {
    this.#clients.delete(clusterKeyString(cluster));
  }

  /** The cluster is being deleted: stop watching its Nodes now rather than after the idle time. */
  stop(cluster: ClusterKey): void {
    this.#clients.delete(clusterKeyString(cluster));
    this.#watches.stop(cluster);
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

  #release(cluster: ClusterKey): void {
    this.#clients.delete(clusterKeyString(cluster));
    this.#watches.release(cluster);
  }
}
