// Watches of workload-cluster Nodes, kept only while somebody waits for a Node there. A kubelet
// registering in a workload cluster raises no event in the management cluster, so without this a
// controller waiting for a Node can only poll. Each watch lists and watches the cluster's Nodes
// (through the harness watcher: reconnects, relists after 410, backoff) and hands every Node it
// sees, added, changed or deleted, to `onNode`. A Node deleted while no watch ran (before a watch's
// first list, in the gap before a relist) is told by no event: `onList` gets each list's Nodes, for
// whoever must notice what is missing from it. Each watch also keeps the Nodes it has seen (an
// ObjectStore, as an informer would), so a waiter reads the cluster's Nodes from it (`nodes`) instead
// of listing them on every pass: a list per pass costs O(Nodes) per machine, O(N²) over a fleet
// joining one cluster; the kept Nodes go with the watch. A watch runs through the client it was
// started with: when the ClusterCache rebuilds a cluster's client (rotated kubeconfig, 401, failed
// probe), the next ensure() with the new client restarts it. A cluster nobody waits for is unwatched
// after `idleMs`, so an idle controller holds no connection to any workload cluster.
import type { Client } from '@metal3-ts/generated';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import { ObjectStore } from '../cache/object-store.ts';
import { watcher, type WatcherOptions } from '../cache/watcher.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { type ClusterKey, clusterKeyString } from './errors.ts';

/** `deleted`: the watch reported the Node deleted (its last state); otherwise added, changed or listed. */
export type NodeHandler = (cluster: ClusterKey, node: Readonly<Node>, deleted: boolean) => void;

export interface NodeWatchesOptions {
  readonly log?: Logger;
  /** How long a cluster nobody waits for stays watched (default 60 s: Nodes of one wave arrive together). */
  readonly idleMs?: number;
  /** Every list of a cluster's Nodes (a watch's first, each relist), after its Nodes were handed to `onNode`. */
  readonly onList?: (cluster: ClusterKey, nodes: readonly Readonly<Node>[]) => void;
  /** Passed to the watcher (tests shorten timeouts and backoff). */
  readonly watcher?: Omit<WatcherOptions, 'log' | 'labelSelector' | 'fieldSelector'>;
}

interface Watch {
  readonly client: Client;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  /** The Nodes as the watch last saw them; no store until its first list. */
  readonly seen: { nodes?: ObjectStore<Node> };
  idle?: ReturnType<typeof setTimeout> | undefined;
}

export class NodeWatches {
  readonly #onNode: NodeHandler;
  readonly #options: NodeWatchesOptions;
  readonly #log: Logger;
  readonly #watches = new Map<string, Watch>();
  #closed = false;

  constructor(onNode: NodeHandler, options: NodeWatchesOptions = {}) {
    this.#onNode = onNode;
    this.#options = options;
    this.#log = (options.log ?? silentLogger).with({ component: 'node-watch' });
  }

  /** Keeps the cluster's Nodes watched through `client`; a different client than the running watch's restarts it. */
  ensure(cluster: ClusterKey, client: Client): void {
    if (this.#closed) return;
    const key = clusterKeyString(cluster);
    const running = this.#watches.get(key);
    if (running?.client === client) {
      clearTimeout(running.idle);
      running.idle = undefined;
      return;
    }
    if (running) this.#stop(key, running, 'the cluster client was rebuilt');
    const stop = new AbortController();
    const seen: Watch['seen'] = {};
    const done = this.#run(cluster, client, stop.signal, seen);
    this.#watches.set(key, { client, stop, done, seen });
    this.#log.info('watching workload Nodes', { cluster: key });
  }

  /** Nobody waits for a Node in the cluster any more: stop watching it after `idleMs` unless ensured again. */
  release(cluster: ClusterKey): void {
    const key = clusterKeyString(cluster);
    const watch = this.#watches.get(key);
    if (!watch || watch.idle) return;
    watch.idle = setTimeout(() => this.#stop(key, watch, 'idle'), this.#options.idleMs ?? 60_000);
    (watch.idle as { unref?: () => void }).unref?.();
  }

  /** Stops watching the cluster now (it is being deleted: its apiserver should not wait on our watch). */
  stop(cluster: ClusterKey): void {
    const key = clusterKeyString(cluster);
    const watch = this.#watches.get(key);
    if (watch) this.#stop(key, watch, 'stopped by caller');
  }

  /** Whether the cluster's Nodes are watched now (a watch that ended on a failure is not). */
  has(cluster: ClusterKey): boolean {
    return this.#watches.has(clusterKeyString(cluster));
  }

  /**
   * The cluster's Nodes as its watch through `client` has seen them, once that watch has listed;
   * undefined without such a watch (none, another client's, not listed yet). As fresh as the watch:
   * a caller that waits for a Node before it reads here is woken by any change it has not seen.
   */
  nodes(cluster: ClusterKey, client: Client): readonly Readonly<Node>[] | undefined {
    const watch = this.#watches.get(clusterKeyString(cluster));
    return watch?.client === client ? watch.seen.nodes?.list() : undefined;
  }

  /** Clusters watched now. */
  get size(): number {
    return this.#watches.size;
  }

  /** Stops every watch; resolves once they have ended. */
  async close(): Promise<void> {
    this.#closed = true;
    const watches = [...this.#watches.entries()];
    for (const [key, watch] of watches) this.#stop(key, watch, 'closed');
    await Promise.all(watches.map(([, watch]) => watch.done));
  }

  #stop(key: string, watch: Watch, reason: string): void {
    clearTimeout(watch.idle);
    watch.stop.abort();
    if (this.#watches.get(key) === watch) this.#watches.delete(key);
    this.#log.info('stopped watching workload Nodes', { cluster: key, reason });
  }

  #listed(cluster: ClusterKey, nodes: readonly Readonly<Node>[]): void {
    try {
      this.#options.onList?.(cluster, nodes);
    } catch (error) {
      this.#log.error('node list handler failed', { cluster: clusterKeyString(cluster), error });
    }
  }

  async #run(cluster: ClusterKey, client: Client, signal: AbortSignal, seen: Watch['seen']): Promise<void> {
    const deliver = (node: Readonly<Node>, deleted = false) => {
      try {
        this.#onNode(cluster, node, deleted);
      } catch (error) {
        this.#log.error('node handler failed', { cluster: clusterKeyString(cluster), node: node.metadata.name, error });
      }
    };
    try {
      for await (const event of watcher(client.api(NodeResource), signal, { ...this.#options.watcher, log: this.#log })) {
        // A deleted Node matters too: it may end a conflict (two Nodes claiming one host).
        if (event.type === 'replace') {
          (seen.nodes ??= new ObjectStore()).replace(event.objects);
          event.objects.forEach((node) => deliver(node));
          this.#listed(cluster, event.objects);
        } else if (event.type === 'apply' || event.type === 'delete') {
          if (event.type === 'apply') seen.nodes?.apply(event.object);
          else seen.nodes?.delete(event.object);
          deliver(event.object, event.type === 'delete');
        }
      }
    } catch (error) {
      // The watcher retries apiserver trouble itself; anything else ends this watch, and the next
      // ensure() for the cluster starts a new one (the waiting controller still polls meanwhile).
      if (!signal.aborted) this.#log.error('workload Node watch failed', { cluster: clusterKeyString(cluster), error });
    } finally {
      const key = clusterKeyString(cluster);
      const watch = this.#watches.get(key);
      if (watch?.stop.signal === signal) this.#watches.delete(key);
    }
  }
}
