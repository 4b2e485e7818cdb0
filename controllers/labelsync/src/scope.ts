// The scope of one host's reconcile: read once from the informers (the host and the chain's decision,
// chain.ts), then filled in by the phases (the workload client, the Node's labels). Phases read and
// write only this, so the reconcile's I/O is in the phases and its decisions in pure functions.
import type { Client } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { type ChainLookup, decide, type Decision } from './chain.ts';

export interface LabelSyncStores {
  readonly hosts: Store<BareMetalHost>;
  readonly metal3Machines: Store<Metal3Machine>;
  readonly machines: Store<Machine>;
  readonly clusters: Store<Cluster>;
  readonly metal3Clusters: Store<Metal3Cluster>;
}

export interface HostScope {
  /** `BareMetalHost <ns>/<name>`, naming the object in step failures. */
  readonly object: string;
  /** The request key of the host (what SyncedNodes files it under). */
  readonly key: string;
  readonly host: Readonly<BareMetalHost>;
  readonly decision: Decision;
  /** The workload cluster's client (set by the first phase). */
  client?: Client;
  /** The Node's labels as last seen (watch, GET or our patch); undefined until known. */
  nodeLabels?: Readonly<Record<string, string>> | undefined;
}

export function lookupIn(stores: LabelSyncStores): ChainLookup {
  return {
    metal3Machine: (namespace, name) => stores.metal3Machines.get({ namespace, name }),
    machine: (namespace, name) => stores.machines.get({ namespace, name }),
    cluster: (namespace, name) => stores.clusters.get({ namespace, name }),
    metal3Cluster: (namespace, name) => stores.metal3Clusters.get({ namespace, name }),
  };
}

export function readScope(stores: LabelSyncStores, host: Readonly<BareMetalHost>, key: string): HostScope {
  const { namespace, name } = host.metadata;
  return { object: `BareMetalHost ${namespace}/${name}`, key, host, decision: decide(host, lookupIn(stores)) };
}
