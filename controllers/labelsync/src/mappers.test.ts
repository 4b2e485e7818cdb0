import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Store } from '@metal3-ts/shared/cache/types';
import { admits } from '@metal3-ts/shared/controller/predicates';
import {
  clusterToHosts,
  hostChanged,
  hostsByConsumer,
  machineChanged,
  machinesByCluster,
  machineToHosts,
  metal3ClusterToHosts,
  metal3MachineToHosts,
} from './mappers.ts';
import { HOSTS_BY_CONSUMER_INDEX, MACHINES_BY_CLUSTER_INDEX } from './names.ts';

const test = suite('label-sync mappers: every link of the chain wakes its host (LS-1 made event driven)');

const NS = 'ns';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const host = (name: string, consumer?: string): BareMetalHost => ({
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name, namespace: NS },
  spec: consumer ? { consumerRef: { apiVersion: INFRA, kind: 'Metal3Machine', name: consumer, namespace: NS } } : {},
} as BareMetalHost);
const machine = (name: string, m3m: string, cluster = 'c1'): Machine => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name, namespace: NS },
  spec: { clusterName: cluster, bootstrap: {}, infrastructureRef: { apiVersion: INFRA, kind: 'Metal3Machine', name: m3m } },
} as Machine);

/** A store with just the indexes the mappers read. */
function storeOf<T extends BareMetalHost | Machine>(objects: T[], index: string, fn: (o: T) => string[]): Store<T> {
  return {
    get: () => undefined,
    list: () => objects,
    byIndex: (name: string, value: string) => (name === index ? objects.filter((o) => fn(o).includes(value)) : []),
  } as unknown as Store<T>;
}

const hosts = storeOf([host('h0', 'm3m-0'), host('h1', 'm3m-1'), host('free')], HOSTS_BY_CONSUMER_INDEX, hostsByConsumer);
const machines = storeOf([machine('m0', 'm3m-0'), machine('m1', 'm3m-1'), machine('other', 'm3m-x', 'c2')], MACHINES_BY_CLUSTER_INDEX, machinesByCluster);
const stores = { hosts, machines };
const names = (requests: readonly { name: string }[]) => requests.map((r) => r.name).sort();

test('LS-3: a Metal3Machine and a Machine map to the host the Metal3Machine consumes', () => {
  assert.equal(names(metal3MachineToHosts(stores)({ metadata: { name: 'm3m-1', namespace: NS } } as Metal3Machine)), ['h1']);
  assert.equal(names(machineToHosts(stores)(machine('m0', 'm3m-0'))), ['h0']);
  assert.equal(names(machineToHosts(stores)(machine('mx', 'nobody'))), []);
});

test("LS-1: a Metal3Cluster maps through its owner Cluster to the hosts of that Cluster's Machines; no owner, nothing", () => {
  const owned = {
    metadata: { name: 'm3c', namespace: NS, ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'u' }] },
  };
  assert.equal(names(metal3ClusterToHosts(stores)(owned as Metal3Cluster)), ['h0', 'h1']);
  assert.equal(names(metal3ClusterToHosts(stores)({ metadata: { name: 'm3c', namespace: NS } } as Metal3Cluster)), []);
  assert.equal(names(clusterToHosts(stores)({ metadata: { name: 'c1', namespace: NS } } as Cluster)), ['h0', 'h1']);
});

test("only changes the chain reads pass: host labels, annotations and consumer; a Machine's nodeRef", () => {
  const h = host('h0', 'm3m-0');
  const update = <T extends BareMetalHost | Machine>(old: T, object: T) => ({ type: 'update' as const, old, object });
  assert.ok(admits(hostChanged, update(h, { ...h, metadata: { ...h.metadata, labels: { 'my.org/a': '1' } } })), 'a label');
  assert.ok(admits(hostChanged, update(h, { ...h, metadata: { ...h.metadata, annotations: { 'baremetalhost.metal3.io/paused': '' } } })), 'the pause');
  assert.ok(admits(hostChanged, update(h, host('h0', 'm3m-9'))), 'the consumer');
  assert.not.ok(admits(hostChanged, update(h, { ...h, status: { poweredOn: true } } as BareMetalHost)), 'status churn');
  const m = machine('m0', 'm3m-0');
  assert.ok(admits(machineChanged, update(m, { ...m, status: { nodeRef: { name: 'n0' } } } as Machine)), 'the nodeRef');
  assert.not.ok(admits(machineChanged, update(m, { ...m, status: { phase: 'Running' } } as Machine)), 'a phase');
});

test.run();
