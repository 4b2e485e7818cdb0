// M-2…M-7 and the awaiting-host wake-up beyond upstream: which Metal3Machines an event of another
// kind wakes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import { type Machine, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Machine,
  newMetal3Cluster,
  newMetal3Data,
  newMetal3DataClaim,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import type { IndexFn } from '@metal3-ts/shared/cache/types';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import {
  clusterToMetal3Machines,
  hostToMetal3Machines,
  MACHINE_BY_CLUSTER_INDEX,
  machineByCluster,
  machineToMetal3Machine,
  metal3ClusterToMetal3Machines,
  METAL3MACHINE_AWAITING_HOST_INDEX,
  metal3MachineAwaitingHost,
  ownerMetal3Machines,
} from './mappers.ts';

const test = suite('Metal3Machine watches: mappings');

const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const UNPARSABLE = 'infrastructure.cluster.x-k8s.io/v1beta1/extra';

function store<T extends KubeObject>(objects: T[], indexes: Record<string, IndexFn<T>>): ObjectStore<T> {
  const s = new ObjectStore<T>();
  for (const [name, fn] of Object.entries(indexes)) s.addIndex(name, fn);
  for (const o of objects) s.apply(o);
  return s;
}

function machine(name: string, infra: { apiVersion?: string; kind?: string; name?: string }, options: { cluster?: string; namespace?: string } = {}): Machine {
  const labels = options.cluster === undefined ? {} : { labels: { 'cluster.x-k8s.io/cluster-name': options.cluster } };
  return newMachine({
    metadata: { name, namespace: options.namespace ?? 'ns', ...labels },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: infra },
  });
}

function m3m(name: string, meta: Partial<Metal3Machine['metadata']> = {}): Metal3Machine {
  return newMetal3Machine({ metadata: { name, namespace: 'ns', ...meta }, spec: {} });
}

const ref = (name: string, apiVersion = INFRA, kind = 'Metal3Machine'): OwnerReference => ({ apiVersion, kind, name, uid: `uid-${name}` });
const req = (name: string, namespace = 'ns') => ({ namespace, name });

test('M-2: a Machine maps to the Metal3Machine its infrastructureRef names, at any version', () => {
  assert.equal(machineToMetal3Machine(machine('m', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m' })), [req('m3m')]);
  assert.equal(machineToMetal3Machine(machine('m', { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'm3m' })), [
    req('m3m'),
  ]);
  assert.equal(machineToMetal3Machine(machine('m', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m' }, { namespace: 'other' })), [req('m3m', 'other')]);
});

test('M-2: other kinds, other groups, unparsable apiVersions and unnamed refs map to nothing', () => {
  const cases = [
    { apiVersion: INFRA, kind: 'DockerMachine', name: 'm3m' },
    { apiVersion: 'example.com/v1', kind: 'Metal3Machine', name: 'm3m' },
    { apiVersion: UNPARSABLE, kind: 'Metal3Machine', name: 'm3m' },
    { kind: 'Metal3Machine', name: 'm3m' },
    { apiVersion: INFRA, kind: 'Metal3Machine' },
  ];
  for (const infra of cases) assert.equal(machineToMetal3Machine(machine('m', infra)), [], JSON.stringify(infra));
});

const machines = () =>
  store(
    [
      machine('a', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m-a' }, { cluster: 'c1' }),
      machine('b', { apiVersion: 'example.com/v1', kind: 'DockerMachine', name: 'docker-b' }, { cluster: 'c1' }),
      machine('c', { apiVersion: INFRA, kind: 'Metal3Machine' }, { cluster: 'c1' }),
      machine('d', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m-d' }, { cluster: 'c2' }),
      machine('e', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m-e' }, { cluster: 'c1', namespace: 'other' }),
      machine('f', { apiVersion: INFRA, kind: 'Metal3Machine', name: 'm3m-f' }),
    ],
    { [MACHINE_BY_CLUSTER_INDEX]: machineByCluster },
  );

const byName = (requests: readonly { name: string }[]) => requests.map((r) => r.name).sort();

test('M-3: a Cluster maps to the infrastructureRef names of the Machines labelled with it, in its namespace', () => {
  const cluster = newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: {} });
  assert.equal(byName(clusterToMetal3Machines(machines())(cluster)), ['docker-b', 'm3m-a']);
  assert.equal(clusterToMetal3Machines(machines())(newCluster({ metadata: { name: 'c3', namespace: 'ns' }, spec: {} })), []);
});

test('M-3 (quirk kept): the infrastructureRef kind and group are not checked; an unnamed ref is skipped', () => {
  const requests = clusterToMetal3Machines(machines())(newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: {} }));
  assert.ok(requests.some((r) => r.name === 'docker-b'), 'a DockerMachine ref yields a request');
  assert.not.ok(requests.some((r) => r.name === ''), 'machine c has no ref name');
});

test('M-3: the Machine index files by <namespace>/<cluster-name label>; unlabelled Machines nowhere', () => {
  assert.equal(machineByCluster(machine('a', {}, { cluster: 'c1' })), ['ns/c1']);
  assert.equal(machineByCluster(machine('a', {}, { cluster: 'c1', namespace: 'other' })), ['other/c1']);
  assert.equal(machineByCluster(machine('f', {})), []);
});

test('M-4: a Metal3Cluster maps through its owner Cluster (kind Cluster, group cluster.x-k8s.io, any version)', () => {
  const m3c = (owners: OwnerReference[]) => newMetal3Cluster({ metadata: { name: 'm3c', namespace: 'ns', ownerReferences: owners }, spec: {} });
  const map = metal3ClusterToMetal3Machines(machines());
  assert.equal(byName(map(m3c([ref('c1', 'cluster.x-k8s.io/v1beta1', 'Cluster')]))), ['docker-b', 'm3m-a']);
  assert.equal(byName(map(m3c([ref('x', INFRA, 'Metal3Machine'), ref('c1', 'cluster.x-k8s.io/v1beta2', 'Cluster')]))), ['docker-b', 'm3m-a']);
  assert.equal(map(m3c([])), [], 'no owner yet');
  assert.equal(map(m3c([ref('c1', 'example.com/v1', 'Cluster')])), [], 'another group');
  assert.equal(map(m3c([ref('c1', 'cluster.x-k8s.io/v1beta1/x', 'Cluster')])), [], 'unparsable apiVersion');
  assert.equal(map(m3c([ref('c1', 'cluster.x-k8s.io/v1beta1', 'Machine')])), [], 'another kind');
  assert.equal(map(m3c([ref('c3', 'cluster.x-k8s.io/v1beta1', 'Cluster')])), [], 'a Cluster without Machines');
});

const owners = [
  ref('a'),
  ref('b', 'infrastructure.cluster.x-k8s.io/v1alpha5'),
  ref('c', UNPARSABLE),
  ref('d', INFRA, 'Metal3Data'),
  ref('e', 'example.com/v1'),
  ref('f', 'cluster.x-k8s.io/v1beta1', 'Machine'),
];

test('M-5: a Metal3DataClaim maps to every Metal3Machine owner (version ignored); unparsable apiVersions skipped', () => {
  const claim = newMetal3DataClaim({ metadata: { name: 'claim', namespace: 'ns', ownerReferences: owners }, spec: { template: { name: 'tmpl' } } });
  assert.equal(ownerMetal3Machines(claim), [req('a'), req('b')]);
  assert.equal(ownerMetal3Machines(newMetal3DataClaim({ metadata: { name: 'claim', namespace: 'ns' }, spec: { template: { name: 'tmpl' } } })), []);
});

test('M-6: a Metal3Data maps by the same rule on its own ownerReferences', () => {
  const data = newMetal3Data({
    metadata: { name: 'tmpl-0', namespace: 'other', ownerReferences: owners },
    spec: { claim: { name: 'claim' }, template: { name: 'tmpl' } },
  });
  assert.equal(ownerMetal3Machines(data), [req('a', 'other'), req('b', 'other')]);
});

const awaiting = () =>
  store(
    [
      m3m('waiting-1'),
      m3m('waiting-2'),
      m3m('has-host', { annotations: { 'metal3.io/BareMetalHost': 'ns/host-0' } }),
      m3m('deleting', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      m3m('paused', { annotations: { 'cluster.x-k8s.io/paused': '' } }),
      m3m('elsewhere', { namespace: 'other' }),
    ],
    { [METAL3MACHINE_AWAITING_HOST_INDEX]: metal3MachineAwaitingHost },
  );

/** The host handler for a host seen for the first time (an add event). */
const hostAdded = (host: BareMetalHost) => hostToMetal3Machines(awaiting())({ type: 'add', object: host });
const hostUpdated = (old: BareMetalHost, object: BareMetalHost) => hostToMetal3Machines(awaiting())({ type: 'update', old, object });

test('M-7: a host consumed by a Metal3Machine maps to it (the consumerRef namespace, any version)', () => {
  const map = hostAdded;
  assert.equal(map(testHost('h', { consumer: machineRef('m3m') })), [req('m3m')]);
  assert.equal(map(testHost('h', { consumer: { ...machineRef('m3m', 'other'), apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2' } })), [
    req('m3m', 'other'),
  ]);
});

test('M-7: a consumerRef of another kind or group, or with an unparsable apiVersion, maps to nothing and wakes no one', () => {
  const map = hostAdded;
  const consumers = [
    { ...machineRef('m3m'), kind: 'Machine' },
    { ...machineRef('m3m'), apiVersion: 'example.com/v1' },
    { ...machineRef('m3m'), apiVersion: UNPARSABLE },
  ];
  for (const consumer of consumers) assert.equal(map(testHost('h', { consumer })), [], JSON.stringify(consumer));
});

test('M-7 (beyond upstream, H-11): a selectable unclaimed host wakes the Metal3Machines of its namespace awaiting a host', () => {
  const map = hostAdded;
  assert.equal(byName(map(testHost('h'))), ['waiting-1', 'waiting-2']);
  assert.equal(byName(map(testHost('h', { state: 'ready' }))), ['waiting-1', 'waiting-2'], 'ready counts as available (H-8)');
  const reserved = testHost('h', { state: 'provisioning', labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'md-x' } });
  assert.equal(byName(map(reserved)), ['waiting-1', 'waiting-2'], 'a node-reuse reservation decides in any state (H-10)');
  assert.equal(map(testHost('h', { namespace: 'other' })), [req('elsewhere', 'other')]);
  assert.equal(map(testHost('h', { namespace: 'empty' })), []);
});

test('M-7 (beyond upstream): claimed, unavailable, paused, unhealthy, failed or deleting hosts wake no waiting machine', () => {
  const map = hostAdded;
  const hosts = {
    claimed: testHost('h', { consumer: { ...machineRef('x'), kind: 'Other' } }),
    provisioning: testHost('h', { state: 'provisioning' }),
    inspecting: testHost('h', { state: 'inspecting' }),
    paused: testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': '' } }),
    unhealthy: testHost('h', { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } }),
    failed: testHost('h', { errorMessage: 'boom' }),
    deleting: testHost('h', { deleting: true }),
  };
  for (const [what, host] of Object.entries(hosts)) assert.equal(map(host), [], what);
});

test('M-7 (beyond upstream): an update wakes the waiting machines only if the host is selectable after it', () => {
  const free = testHost('h');
  const claimed = testHost('h', { consumer: machineRef('waiting-1') });
  assert.equal(hostUpdated(free, claimed), [req('waiting-1')], 'a claim wakes its new consumer only');
  assert.equal(hostUpdated(claimed, claimed), [req('waiting-1')]);
  assert.equal(byName(hostUpdated(claimed, free)), ['waiting-1', 'waiting-2'], 'a release wakes the old consumer and the waiting machines');
  assert.equal(byName(hostUpdated(free, testHost('h', { labels: { pool: 'gpu' } }))), ['waiting-1', 'waiting-2'], 'a label may make it match a selector');
  assert.equal(byName(hostUpdated(testHost('h', { state: 'inspecting' }), free)), ['waiting-1', 'waiting-2'], 'it became available');
  const unpaused = hostUpdated(testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': '' } }), free);
  assert.equal(byName(unpaused), ['waiting-1', 'waiting-2'], 'it was unpaused');
  const reserved = (state: string) => testHost('h', { state, labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'cp-x' } });
  assert.equal(
    byName(hostUpdated(reserved('externally provisioned'), reserved('available'))),
    ['waiting-1', 'waiting-2'],
    'a reserved host changing state (H-10)',
  );
  assert.equal(hostUpdated(free, testHost('h', { state: 'provisioning' })), [], 'it stopped being selectable');
  assert.equal(hostToMetal3Machines(awaiting())({ type: 'delete', object: free }), [], 'a deleted free host wakes no one');
  assert.equal(hostToMetal3Machines(awaiting())({ type: 'delete', object: claimed }), [req('waiting-1')]);
});

test('the awaiting-host index: no host annotation (or an empty one), not deleting, not paused, not failed', () => {
  assert.equal(metal3MachineAwaitingHost(m3m('a')), ['ns']);
  assert.equal(metal3MachineAwaitingHost(m3m('a', { annotations: { 'metal3.io/BareMetalHost': '' } })), ['ns']);
  assert.equal(metal3MachineAwaitingHost(m3m('a', { annotations: { 'metal3.io/BareMetalHost': 'ns/h' } })), []);
  assert.equal(metal3MachineAwaitingHost(m3m('a', { deletionTimestamp: '2026-01-01T00:00:00Z' })), []);
  assert.equal(metal3MachineAwaitingHost(m3m('a', { annotations: { 'cluster.x-k8s.io/paused': 'true' } })), []);
  assert.equal(metal3MachineAwaitingHost({ ...m3m('a'), status: { failureReason: 'InvalidConfiguration' } }), [], 'a terminal failure waits for nothing');
});

test.run();
