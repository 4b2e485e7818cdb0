// Which Metal3Machine waits for which workload Node. A machine whose host is provisioned waits for
// a Node that the provider-ID rules (phases/provider-id.ts) could pick: one carrying one of its
// provider IDs (A, B, P-6, P-7), one labelled with its host's UID (C, P-8) or one whose
// `kubernetes.io/hostname` label is one of its hostnames (E, P-12). Those are the Node's identities; a Node event is looked up by them, so
// only the machines it can concern are woken, whatever the size of the workload cluster.
import type { Node } from '@metal3-ts/generated/core/v1';
import { type ClusterKey, clusterKeyString } from '@metal3-ts/shared/workload/errors';
import { NODE_HOSTNAME_LABEL, NODE_UUID_LABEL } from './names.ts';

/** What a Node this machine can use may carry. */
export interface AwaitedNode {
  readonly providerIDs: readonly string[];
  readonly hostUid?: string | undefined;
  readonly hostnames: readonly string[];
}

/** Index keys of an awaited Node: one per identity it may show. */
export function awaitedKeys(awaited: AwaitedNode): string[] {
  return [
    ...awaited.providerIDs.filter((id) => id !== '').map((id) => `id:${id}`),
    ...(awaited.hostUid ? [`uuid:${awaited.hostUid}`] : []),
    ...awaited.hostnames.filter((name) => name !== '').map((name) => `hostname:${name}`),
  ];
}

/** Index keys of a Node as it is. */
export function nodeKeys(node: Readonly<Node>): string[] {
  const uuid = node.metadata.labels?.[NODE_UUID_LABEL];
  const hostname = node.metadata.labels?.[NODE_HOSTNAME_LABEL];
  return [...(node.spec?.providerID ? [`id:${node.spec.providerID}`] : []), ...(uuid ? [`uuid:${uuid}`] : []), ...(hostname ? [`hostname:${hostname}`] : [])];
}

interface Waiter {
  readonly cluster: ClusterKey;
  readonly keys: readonly string[];
}

/** Machines (by request key) waiting for Nodes, indexed per workload cluster by the identities awaited. */
export class AwaitedNodes {
  readonly #waiters = new Map<string, Waiter>();
  /** cluster → identity key → machine keys */
  readonly #index = new Map<string, Map<string, Set<string>>>();

  /** Records (or replaces) what `machine` waits for in `cluster`. */
  await(machine: string, cluster: ClusterKey, awaited: AwaitedNode): void {
    this.forget(machine);
    const waiter = { cluster, keys: awaitedKeys(awaited) };
    this.#waiters.set(machine, waiter);
    const clusterKey = clusterKeyString(cluster);
    let byKey = this.#index.get(clusterKey);
    if (!byKey) this.#index.set(clusterKey, byKey = new Map());
    for (const key of waiter.keys) {
      let machines = byKey.get(key);
      if (!machines) byKey.set(key, machines = new Set());
      machines.add(machine);
    }
  }

  /** `machine` waits no more; returns the cluster it waited in if nobody else waits there now. */
  forget(machine: string): ClusterKey | undefined {
    const waiter = this.#waiters.get(machine);
    if (!waiter) return undefined;
    this.#waiters.delete(machine);
    const clusterKey = clusterKeyString(waiter.cluster);
    const byKey = this.#index.get(clusterKey);
    for (const key of waiter.keys) {
      const machines = byKey?.get(key);
      machines?.delete(machine);
      if (machines?.size === 0) byKey?.delete(key);
    }
    if (byKey?.size === 0) {
      this.#index.delete(clusterKey);
      return waiter.cluster;
    }
    return undefined;
  }

  /** The machines `node` of `cluster` may be the Node of. */
  waitingFor(cluster: ClusterKey, node: Readonly<Node>): string[] {
    const byKey = this.#index.get(clusterKeyString(cluster));
    if (!byKey) return [];
    const found = new Set<string>();
    for (const key of nodeKeys(node)) for (const machine of byKey.get(key) ?? []) found.add(machine);
    return [...found];
  }

  /** Machines waiting now. */
  get size(): number {
    return this.#waiters.size;
  }
}
