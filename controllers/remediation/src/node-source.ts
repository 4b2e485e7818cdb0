// The workload Nodes as a source of Metal3Remediation requests: a remediation in flight records the
// Node it waits on (to disappear after the delete, or to come back after the power cycle), its
// cluster's Nodes are watched while any remediation waits there (NodeWatches), and a Node event wakes
// exactly the remediations of that Node. This replaces upstream's 5 s polling (RS-12, RS-13).
import type { Client } from '@metal3-ts/generated';
import type { EventSource } from '@metal3-ts/shared/controller/source';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type Request, requestFromKey } from '@metal3-ts/shared/reconcile/reconcile';
import { type ClusterKey, clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { NodeWatches } from '@metal3-ts/shared/workload/node-watch';

export interface NodeWaiters {
  /** Remediation `key` waits for news of Node `node` in `cluster`. */
  wait(key: string, cluster: ClusterKey, client: Client, node: string): void;
  /** Remediation `key` waits for no Node any more. */
  forget(key: string): void;
}

export function nodeSource(log?: Logger): { readonly waiters: NodeWaiters; readonly source: EventSource } {
  const byNode = new Map<string, Set<string>>();
  const of = new Map<string, { readonly nodeKey: string; readonly cluster: ClusterKey }>();
  let enqueue: ((request: Request) => void) | undefined;
  const watches = new NodeWatches((cluster, node) => {
    for (const key of byNode.get(`${clusterKeyString(cluster)}/${node.metadata.name}`) ?? []) enqueue?.(requestFromKey(key));
  }, log ? { log } : {});
  const forget = (key: string) => {
    const entry = of.get(key);
    if (!entry) return;
    of.delete(key);
    const keys = byNode.get(entry.nodeKey);
    keys?.delete(key);
    if (keys?.size === 0) byNode.delete(entry.nodeKey);
    const prefix = `${clusterKeyString(entry.cluster)}/`;
    if (![...byNode.keys()].some((k) => k.startsWith(prefix))) watches.release(entry.cluster);
  };
  return {
    waiters: {
      wait(key, cluster, client, node) {
        const nodeKey = `${clusterKeyString(cluster)}/${node}`;
        if (of.get(key)?.nodeKey !== nodeKey) forget(key);
        of.set(key, { nodeKey, cluster });
        byNode.set(nodeKey, (byNode.get(nodeKey) ?? new Set()).add(key));
        watches.ensure(cluster, client);
      },
      forget,
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
