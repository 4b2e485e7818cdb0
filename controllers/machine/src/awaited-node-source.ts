// One name for one concept: an *awaited Node* is the workload Node a provisioned Metal3Machine waits
// for. awaited-nodes.ts indexes them, awaited-node-poll.ts paces the fallback poll, this module is their
// event source; shared/workload/node-watch.ts (NodeWatches) is only the transport: the Node watches.
//
// The workload Nodes as a source of Metal3Machine requests: a machine waiting for its Node is
// recorded with the identities that Node may show (awaited-nodes.ts), its workload cluster's Nodes
// are watched while anyone waits there (NodeWatches), and a Node event wakes exactly the machines it
// can concern. The reconcile still looks again on its doubling backoff: a watch that cannot be
// opened, or an event lost between the reconcile's Node list and its registration, costs latency,
// never the Node.
import type { Client } from '@metal3-ts/generated';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type Request, requestFromKey } from '@metal3-ts/shared/reconcile/reconcile';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import { NodeWatches, type NodeWatchesOptions } from '@metal3-ts/shared/workload/node-watch';
import { type AwaitedNode, AwaitedNodes } from './awaited-nodes.ts';

/** What the reconcile tells about the machines waiting for a Node. */
export interface AwaitedNodeRegistry {
  /** `machine` (a request key) waits in `cluster`, reached through `client`, for a Node showing `awaited`. */
  await(machine: string, cluster: ClusterKey, client: Client, awaited: AwaitedNode): void;
  /** `machine` waits for no Node any more (found, deleted, gone). */
  forget(machine: string): void;
  /** The cluster is being deleted: stop watching its Nodes now rather than after the idle time. */
  clusterDeleting(cluster: ClusterKey): void;
}

export interface AwaitedNodeSource {
  readonly registry: AwaitedNodeRegistry;
  /** For the controller builder's watchesRawSource; its unsubscribe stops every watch. */
  readonly source: EventSource;
}

export function awaitedNodeSource(options: Omit<NodeWatchesOptions, 'log'> & { readonly log?: Logger | undefined } = {}): AwaitedNodeSource {
  const waiters = new AwaitedNodes();
  let enqueue: ((request: Request) => void) | undefined;
  const { log, ...watchOptions } = options;
  const watches = new NodeWatches(
    (cluster, node) => {
      for (const machine of waiters.waitingFor(cluster, node)) enqueue?.(requestFromKey(machine));
    },
    { ...watchOptions, ...(log ? { log } : {}) },
  );
  return {
    registry: {
      await(machine, cluster, client, awaited) {
        waiters.await(machine, cluster, awaited);
        watches.ensure(cluster, client);
      },
      forget(machine) {
        const idle = waiters.forget(machine);
        if (idle) watches.release(idle);
      },
      clusterDeleting(cluster) {
        watches.stop(cluster);
      },
    },
    source: {
      kind: 'Node',
      waitForSync: async () => {},
      subscribe(deliver) {
        enqueue = deliver;
        return () => {
          enqueue = undefined;
          void watches.close();
        };
      },
    },
  };
}
