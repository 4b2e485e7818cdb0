// §0.6, E-20, M-1…M-7, M-14/M-15: the event filters of the Metal3Machine controller's watches.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { type Cluster, type Machine, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Machine, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { admits, type Predicate } from '@metal3-ts/shared/controller/predicates';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { clusterPauseTransitions, hostChanged, machineChanged, metal3MachineChanged, metal3MachineEventFilter } from './predicates.ts';

const test = suite('Metal3Machine watches: filters');

const update = <T extends KubeObject>(p: Predicate<T>, old: T, obj: T) => admits(p, { type: 'update', old, object: obj });
const create = <T extends KubeObject>(p: Predicate<T>, obj: T) => admits(p, { type: 'add', object: obj });
const remove = <T extends KubeObject>(p: Predicate<T>, obj: T) => admits(p, { type: 'delete', object: obj });

/** A copy of `obj` changed by `edit`, with a new resourceVersion (as every write bumps it). */
function edited<T extends KubeObject>(obj: T, edit: (o: T) => void): T {
  const copy = structuredClone(obj);
  copy.metadata.resourceVersion = `${Number(obj.metadata.resourceVersion ?? '1') + 1}`;
  edit(copy);
  return copy;
}

const m3m = (meta: Partial<Metal3Machine['metadata']> = {}): Metal3Machine =>
  newMetal3Machine({
    metadata: { name: 'm3m', namespace: 'ns', resourceVersion: '1', ...meta },
    spec: { image: { url: 'http://x/img', checksum: 'http://x/img.sum' } },
  });

test('§0.6: the watch-filter label is required when --watch-filter is set, on every source', () => {
  const labelled = { labels: { 'cluster.x-k8s.io/watch-filter': 'team-a' } };
  assert.ok(create(metal3MachineEventFilter(''), m3m()));
  assert.not.ok(create(metal3MachineEventFilter('team-a'), m3m()));
  assert.not.ok(create(metal3MachineEventFilter('team-a'), m3m({ labels: { 'cluster.x-k8s.io/watch-filter': 'team-b' } })));
  assert.ok(create(metal3MachineEventFilter('team-a'), m3m(labelled)));
  assert.not.ok(update(metal3MachineEventFilter('team-a'), m3m(labelled), m3m()), 'judged on the new object');
});

test('§0.6 (changed): events of a paused object are dropped, except the update that pauses it', () => {
  const filter = metal3MachineEventFilter('');
  const paused = m3m({ annotations: { 'cluster.x-k8s.io/paused': '' } });
  const running = m3m();
  assert.not.ok(create(filter, paused));
  assert.not.ok(remove(filter, paused));
  assert.not.ok(update(filter, paused, paused), 'still paused');
  assert.ok(update(filter, running, paused), 'the pausing update');
  assert.ok(update(filter, paused, running), 'the unpausing update');
  assert.not.ok(update(metal3MachineEventFilter('team-a'), running, paused), 'the pausing update still needs the label');
});

test('E-20 (kept): the filter judges the source object: a paused or unlabelled host, Machine or Cluster wakes nothing', () => {
  const filter = metal3MachineEventFilter('');
  const pause = { 'cluster.x-k8s.io/paused': '' };
  assert.not.ok(create(filter, testHost('h', { annotations: pause })));
  assert.ok(create(filter, testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } })), "our host pause is not CAPI's");
  assert.not.ok(
    create(
      filter,
      newMachine({ metadata: { name: 'm', namespace: 'ns', annotations: pause }, spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: {} } }),
    ),
  );
  assert.not.ok(create(filter, newCluster({ metadata: { name: 'c1', namespace: 'ns', annotations: pause }, spec: {} })));
  assert.not.ok(create(metal3MachineEventFilter('team-a'), testHost('h')), 'with --watch-filter the host needs the label too');
});

const cluster = (paused?: boolean): Cluster => newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: paused === undefined ? {} : { paused } });

test('M-3, M-12, M-14, M-15 (changed): Cluster creates, both spec.paused transitions and the infrastructure turning ready pass; nothing else does', () => {
  const p = clusterPauseTransitions;
  assert.ok(create(p, cluster()));
  assert.ok(create(p, cluster(false)));
  assert.ok(create(p, cluster(true)), 'a Cluster created paused pauses its hosts');
  assert.ok(update(p, cluster(true), cluster(false)), 'un-pausing (upstream ClusterUnpaused)');
  assert.ok(update(p, cluster(), cluster(true)), 'pausing (changed)');
  assert.ok(update(p, cluster(false), cluster(true)), 'pausing (changed)');
  assert.not.ok(update(p, cluster(false), cluster(false)));
  assert.not.ok(update(p, cluster(), cluster(false)));
  assert.not.ok(update(p, cluster(true), cluster(true)));
  assert.not.ok(remove(p, cluster()));
  const ready = (how: 'field' | 'condition' | 'no'): Cluster => ({
    ...cluster(false),
    status: how === 'field'
      ? { infrastructureReady: true }
      : how === 'condition'
      ? { conditions: [{ type: 'InfrastructureReady', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] }
      : { infrastructureReady: false },
  });
  assert.ok(update(p, ready('no'), ready('field')), 'M-12: status.infrastructureReady turned true');
  assert.ok(update(p, ready('no'), ready('condition')), 'M-12: the InfrastructureReady condition turned True');
  assert.not.ok(update(p, ready('field'), ready('field')), 'already ready');
  assert.not.ok(update(p, ready('field'), ready('no')), 'turning not ready wakes nothing');
});

test('M-1: status-only, resourceVersion-only and managedFields-only updates of the Metal3Machine are ignored', () => {
  const old = m3m();
  assert.not.ok(update(metal3MachineChanged, old, edited(old, (o) => (o.status = { ready: true }))));
  assert.not.ok(update(metal3MachineChanged, old, edited(old, () => {})));
  assert.not.ok(update(metal3MachineChanged, old, edited(old, (o) => (o.metadata.managedFields = [{ manager: 'x' }]))));
  assert.ok(create(metal3MachineChanged, old));
  assert.ok(remove(metal3MachineChanged, old));
});

test('issue 21: a status reference turning to another namespace is not ignored; our own status references are', () => {
  const old = m3m();
  const own = old.metadata.namespace ?? '';
  assert.not.ok(update(metal3MachineChanged, old, edited(old, (o) => (o.status = { userData: { name: 'u', namespace: own }, renderedData: { name: 'd' } }))));
  assert.ok(update(metal3MachineChanged, old, edited(old, (o) => (o.status = { userData: { name: 'u', namespace: 'tenant-b' } }))));
  assert.ok(update(metal3MachineChanged, old, edited(old, (o) => (o.status = { renderedData: { name: 'd', namespace: 'tenant-b' } }))));
});

test('M-1: metadata and spec changes of the Metal3Machine pass', () => {
  const old = m3m();
  const edits: Record<string, (o: Metal3Machine) => void> = {
    labels: (o) => (o.metadata.labels = { x: 'y' }),
    annotations: (o) => (o.metadata.annotations = { 'metal3.io/BareMetalHost': 'ns/h' }),
    finalizers: (o) => (o.metadata.finalizers = ['metal3machine.infrastructure.cluster.x-k8s.io']),
    ownerReferences: (o) => (o.metadata.ownerReferences = [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'm', uid: 'u' }]),
    deletionTimestamp: (o) => (o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'),
    spec: (o) => (o.spec!.providerID = 'metal3://ns/h/m3m'),
  };
  for (const [what, edit] of Object.entries(edits)) assert.ok(update(metal3MachineChanged, old, edited(old, edit)), what);
});

const host = (): BareMetalHost => testHost('h', { consumer: machineRef('m3m') });

test('M-7: host updates that matter pass: metadata, spec, state, errors, hardware, operational status, power', () => {
  const old = host();
  const edits: Record<string, (h: BareMetalHost) => void> = {
    labels: (h) => (h.metadata.labels = { 'cluster.x-k8s.io/cluster-name': 'c1' }),
    annotations: (h) => (h.metadata.annotations = { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' }),
    deletionTimestamp: (h) => (h.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'),
    spec: (h) => (h.spec!.online = true),
    consumerRef: (h) => delete h.spec!.consumerRef,
    state: (h) => (h.status!.provisioning.state = 'provisioned'),
    errorMessage: (h) => (h.status!.errorMessage = 'boom'),
    errorType: (h) => (h.status!.errorType = 'provisioning error'),
    hardware: (h) => (h.status!.hardware = { hostname: 'node-0' }),
    operationalStatus: (h) => (h.status!.operationalStatus = 'detached'),
    poweredOn: (h) => (h.status!.poweredOn = true),
  };
  for (const [what, edit] of Object.entries(edits)) assert.ok(update(hostChanged, old, edited(old, edit)), what);
});

test('M-7: host bookkeeping updates are dropped; creates and deletes pass', () => {
  const old = host();
  const edits: Record<string, (h: BareMetalHost) => void> = {
    resourceVersion: () => {},
    managedFields: (h) => (h.metadata.managedFields = [{ manager: 'baremetal-operator' }]),
    lastUpdated: (h) => (h.status!.lastUpdated = '2026-01-01T00:00:00Z'),
    operationHistory: (h) => (h.status!.operationHistory = { register: { start: '2026-01-01T00:00:00Z' } }),
    errorCount: (h) => (h.status!.errorCount = 3),
  };
  for (const [what, edit] of Object.entries(edits)) assert.not.ok(update(hostChanged, old, edited(old, edit)), what);
  assert.ok(create(hostChanged, old));
  assert.ok(remove(hostChanged, old));
});

const machine = (): Machine =>
  newMachine({
    metadata: { name: 'm', namespace: 'ns', resourceVersion: '1', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
    spec: {
      clusterName: 'c1',
      bootstrap: { configRef: { kind: 'KubeadmConfig', name: 'cfg' } },
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m' },
    },
    status: { conditions: [{ type: 'BootstrapReady', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  });

test('M-2: Machine updates that matter pass: bootstrap, failure domain, providerID, infraRef, labels, owners, deletion, nodeRef, BootstrapReady', () => {
  const old = machine();
  const edits: Record<string, (m: Machine) => void> = {
    dataSecretName: (m) => (m.spec!.bootstrap.dataSecretName = 'bootstrap'),
    configRef: (m) => (m.spec!.bootstrap.configRef!.name = 'cfg-2'),
    failureDomain: (m) => (m.spec!.failureDomain = 'fd-1'),
    providerID: (m) => (m.spec!.providerID = 'metal3://ns/h/m3m'),
    infrastructureRef: (m) => (m.spec!.infrastructureRef.name = 'm3m-2'),
    labels: (m) => (m.metadata.labels!['cluster.x-k8s.io/control-plane'] = ''),
    ownerReferences: (m) => (m.metadata.ownerReferences = [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: 'u' }]),
    deletionTimestamp: (m) => (m.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'),
    nodeRef: (m) => (m.status!.nodeRef = { kind: 'Node', name: 'node-0' }),
    bootstrapReady: (m) => (m.status!.conditions![0]!.status = 'True'),
  };
  for (const [what, edit] of Object.entries(edits)) assert.ok(update(machineChanged, old, edited(old, edit)), what);
});

test('M-2: other Machine updates are dropped; creates and deletes pass', () => {
  const old = machine();
  const edits: Record<string, (m: Machine) => void> = {
    resourceVersion: () => {},
    phase: (m) => (m.status!.phase = 'Provisioning'),
    otherCondition: (m) => m.status!.conditions!.push({ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }),
    bootstrapReadyReason: (m) => (m.status!.conditions![0]!.reason = 'WaitingForDataSecret'),
    annotations: (m) => (m.metadata.annotations = { x: 'y' }),
    nodeDrainTimeout: (m) => (m.spec!.nodeDrainTimeout = '10s'),
  };
  for (const [what, edit] of Object.entries(edits)) assert.not.ok(update(machineChanged, old, edited(old, edit)), what);
  assert.ok(create(machineChanged, old));
  assert.ok(remove(machineChanged, old));
});

test.run();
