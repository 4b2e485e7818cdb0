// The Machine controller's decisions as tables: phase, bootstrap, infrastructure, Node, adoption,
// and the deletion order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Node } from '@metal3-ts/generated/core/v1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { type ContractObject, ContractViolationError } from './contract.ts';
import {
  applyBootstrap,
  applyInfrastructure,
  applyNode,
  finishMachineStatus,
  InfrastructureGoneError,
  machinePhase,
  nextMachineDeletionStep,
  nodeDeletionBlocker,
  nodeDeletionTimedOut,
  NodeGoneError,
  parseDuration,
  shouldAdopt,
  summarizeNodeConditions,
} from './machine-status.ts';

const test = suite('Machine controller decisions');
const DELETED_AT = '2026-01-01T00:00:00Z';

function machine(spec: Partial<NonNullable<Machine['spec']>> = {}, status: Machine['status'] = {}, meta: Partial<Machine['metadata']> = {}): Machine {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'ns', generation: 2, ...meta },
    spec: {
      clusterName: 'c1',
      bootstrap: {},
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm' },
      ...spec,
    },
    status,
  };
}

const provider = (
  kind: string,
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = {},
  meta: Partial<ContractObject['metadata']> = {},
): ContractObject => ({
  apiVersion: kind === 'KubeadmConfig' ? 'bootstrap.cluster.x-k8s.io/v1beta1' : 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind,
  metadata: { name: 'm', namespace: 'ns', ...meta },
  spec,
  status,
});

const cond = (m: Machine, type: string) => {
  const c = getCondition(m, type);
  return c ? [c.status, c.reason ?? '', c.severity ?? ''] : undefined;
};

function throwsKind(fn: () => unknown, kind: abstract new (...args: never[]) => Error): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, kind);
    return;
  }
  assert.unreachable(`expected ${kind.name}`);
}

test('phase: Pending → Provisioning → Provisioned → Running, Failed and Deleting win, otherwise kept', () => {
  const nodeRef = { apiVersion: 'v1', kind: 'Node', name: 'n' };
  const rows: [string, Machine, string][] = [
    ['new', machine(), 'Pending'],
    ['bootstrap ready', machine({}, { bootstrapReady: true }), 'Provisioning'],
    ['providerID', machine({ providerID: 'p' }, { bootstrapReady: true, infrastructureReady: true }), 'Provisioned'],
    ['providerID without bootstrap ready', machine({ providerID: 'p' }, { infrastructureReady: true }), 'Provisioned'],
    ['nodeRef', machine({ providerID: 'p' }, { bootstrapReady: true, infrastructureReady: true, nodeRef }), 'Running'],
    ['nodeRef without infrastructure ready is not Running', machine({}, { phase: 'Pending', nodeRef }), 'Pending'],
    ['failure', machine({ providerID: 'p' }, { infrastructureReady: true, nodeRef, failureReason: 'UpdateError' }), 'Failed'],
    ['deleting', machine({ providerID: 'p' }, { failureMessage: 'x' }, { deletionTimestamp: DELETED_AT }), 'Deleting'],
    ['no rule keeps the phase', machine({}, { phase: 'Running' }), 'Running'],
  ];
  for (const [name, m, phase] of rows) assert.is(machinePhase(m), phase, name);
});

test('lastUpdated moves with the phase only; Ready summarises InfrastructureReady and BootstrapReady', () => {
  const m = machine();
  finishMachineStatus(m, 't1');
  assert.equal([m.status?.phase, m.status?.lastUpdated, m.status?.observedGeneration], ['Pending', 't1', 2]);
  finishMachineStatus(m, 't2');
  assert.is(m.status?.lastUpdated, 't1');
  applyBootstrap(m, provider('KubeadmConfig', {}, { ready: false }));
  finishMachineStatus(m, 't3');
  assert.equal(cond(m, 'Ready'), ['False', 'WaitingForDataSecret', 'Info']);
});

test('bootstrap: no configRef leaves the Machine alone; a missing config is waited for', () => {
  const own = machine({ bootstrap: { dataSecretName: 'mine' } });
  assert.is(applyBootstrap(own, undefined), 'done');
  assert.is(own.status?.bootstrapReady, undefined);
  assert.is(applyBootstrap(machine(), 'missing'), 'missing');
  assert.is(applyBootstrap(machine({}, {}, { deletionTimestamp: DELETED_AT }), 'missing'), 'done', 'tolerated while deleting');
});

test('bootstrap: waits for status.ready, then copies status.dataSecretName once', () => {
  const m = machine();
  assert.is(applyBootstrap(m, provider('KubeadmConfig', {}, {})), 'waiting');
  assert.equal(cond(m, 'BootstrapReady'), ['False', 'WaitingForDataSecret', 'Info']);
  assert.is(m.spec?.bootstrap.dataSecretName, undefined);
  assert.is(applyBootstrap(m, provider('KubeadmConfig', {}, { ready: true, dataSecretName: 'm-bootstrap' })), 'done');
  assert.is(m.spec?.bootstrap.dataSecretName, 'm-bootstrap');
  assert.is(m.status?.bootstrapReady, true);
  assert.equal(cond(m, 'BootstrapReady'), ['True', '', '']);
  assert.is(applyBootstrap(m, provider('KubeadmConfig', {}, { ready: false, dataSecretName: 'other' })), 'done');
  assert.is(m.spec?.bootstrap.dataSecretName, 'm-bootstrap', 'once set, the Machine keeps its data secret');
  assert.equal(cond(m, 'BootstrapReady'), ['True', '', '']);
});

test('bootstrap: ready without a dataSecretName breaks the contract; failures surface', () => {
  throwsKind(() => applyBootstrap(machine(), provider('KubeadmConfig', {}, { ready: true })), ContractViolationError);
  const m = machine();
  applyBootstrap(m, provider('KubeadmConfig', {}, { failureReason: 'BootstrapError', failureMessage: 'bad join config' }));
  assert.is(m.status?.failureReason, 'BootstrapError');
  assert.is(
    m.status?.failureMessage,
    'Failure detected from referenced resource bootstrap.cluster.x-k8s.io/v1beta1, Kind=KubeadmConfig with name "m": bad join config',
  );
  assert.is(machinePhase(m), 'Failed');
});

test('infrastructure: waits for ready, then providerID, addresses and failure domain are copied', () => {
  const m = machine();
  assert.is(applyInfrastructure(m, provider('Metal3Machine', { providerID: 'metal3://ns/host-0/m' }, { ready: false })), 'waiting');
  assert.is(m.spec?.providerID, undefined);
  assert.equal(cond(m, 'InfrastructureReady'), ['False', 'WaitingForInfrastructure', 'Info']);
  const ready = provider('Metal3Machine', { providerID: 'metal3://ns/host-0/m', failureDomain: 'rack-1' }, {
    ready: true,
    addresses: [{ type: 'InternalIP', address: '192.168.111.20' }, { type: 'Hostname', address: 'node-0' }],
  });
  assert.is(applyInfrastructure(m, ready), 'done');
  assert.equal([m.spec?.providerID, m.spec?.failureDomain, m.status?.infrastructureReady], ['metal3://ns/host-0/m', 'rack-1', true]);
  assert.equal(m.status?.addresses, [{ type: 'InternalIP', address: '192.168.111.20' }, { type: 'Hostname', address: 'node-0' }]);
  assert.is(machinePhase(m), 'Provisioned');
  assert.is(applyInfrastructure(m, provider('Metal3Machine', { providerID: 'metal3://ns/host-0/m' }, { ready: false })), 'done');
  assert.is(m.status?.infrastructureReady, true, 'readiness is never taken back');
  assert.equal(cond(m, 'InfrastructureReady'), ['False', 'WaitingForInfrastructure', 'Info'], 'the condition follows the object');
});

test('infrastructure: ready without providerID breaks the contract; gone after ready fails the Machine', () => {
  throwsKind(() => applyInfrastructure(machine(), provider('Metal3Machine', {}, { ready: true })), ContractViolationError);
  assert.is(applyInfrastructure(machine(), 'missing'), 'missing');
  const m = machine({ providerID: 'p' }, { infrastructureReady: true });
  throwsKind(() => applyInfrastructure(m, 'missing'), InfrastructureGoneError);
  assert.is(m.status?.failureReason, 'InvalidConfiguration');
  assert.is(
    m.status?.failureMessage,
    'Machine infrastructure resource infrastructure.cluster.x-k8s.io/v1beta1, Kind=Metal3Machine with name "m" has been deleted after being ready',
  );
  assert.is(applyInfrastructure(machine({}, { infrastructureReady: true }, { deletionTimestamp: DELETED_AT }), 'missing'), 'done');
});

const node = (conditions: NonNullable<Node['status']>['conditions'] = []): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-0', uid: 'uid-n' },
  spec: { providerID: 'p' },
  status: { conditions },
});

test('node health: CAPI summarizeNodeConditions', () => {
  const rows: [string, Node, string][] = [
    ['no conditions', node(), 'Unknown'],
    ['ready', node([{ type: 'Ready', status: 'True' }]), 'True'],
    ['not ready', node([{ type: 'Ready', status: 'False' }]), 'False'],
    ['ready unknown only', node([{ type: 'Ready', status: 'Unknown' }]), 'Unknown'],
    ['ready and memory pressure', node([{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'True' }]), 'False'],
    [
      'ready and no pressure',
      node([{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }, { type: 'PIDPressure', status: 'False' }]),
      'True',
    ],
    ['ready and pressure unknown', node([{ type: 'Ready', status: 'True' }, { type: 'PIDPressure', status: 'Unknown' }]), 'True'],
  ];
  for (const [name, n, status] of rows) assert.is(summarizeNodeConditions(n).status, status, name);
});

test('node: waits for a providerID, then for the Node; the nodeRef is set once; a vanished Node is an error', () => {
  const m = machine();
  assert.is(applyNode(m, { node: undefined }), 'waiting');
  assert.equal(cond(m, 'NodeHealthy'), ['False', 'WaitingForNodeRef', 'Info']);
  m.spec!.providerID = 'p';
  assert.is(applyNode(m, undefined), 'waiting', 'workload cluster not reachable');
  assert.is(applyNode(m, { node: undefined }), 'waiting');
  assert.equal(cond(m, 'NodeHealthy'), ['False', 'NodeProvisioning', 'Warning']);
  assert.is(applyNode(m, { node: node([{ type: 'Ready', status: 'True' }]) }), 'done');
  assert.equal(m.status?.nodeRef, { apiVersion: 'v1', kind: 'Node', name: 'node-0', uid: 'uid-n' });
  assert.equal(cond(m, 'NodeHealthy'), ['True', '', '']);
  throwsKind(() => applyNode(m, { node: undefined }), NodeGoneError);
  assert.equal(cond(m, 'NodeHealthy'), ['False', 'NodeNotFound', 'Error']);
  assert.is(m.status?.nodeRef?.name, 'node-0', 'the nodeRef stays');
});

test('adoption: only stand-alone Machines get their Cluster as owner', () => {
  const owner = (kind: string, controller?: boolean) => ({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind,
    name: 'x',
    uid: 'u',
    ...(controller ? { controller } : {}),
  });
  const rows: [string, Machine, boolean][] = [
    ['stand-alone', machine(), true],
    ['controlled by a MachineSet', machine({}, {}, { ownerReferences: [owner('MachineSet', true)] }), false],
    ['owned (not controlled) by a MachineSet', machine({}, {}, { ownerReferences: [owner('MachineSet')] }), false],
    ['already owned by the Cluster', machine({}, {}, { ownerReferences: [owner('Cluster')] }), false],
    ['labelled with a MachineSet', machine({}, {}, { labels: { 'cluster.x-k8s.io/set-name': 'ms' } }), false],
    ['labelled with a MachineDeployment', machine({}, {}, { labels: { 'cluster.x-k8s.io/deployment-name': 'md' } }), false],
  ];
  for (const [name, m, expected] of rows) assert.is(shouldAdopt(m), expected, name);
});

test('node deletion is allowed only with a nodeRef, a live Cluster and another active control-plane Machine', () => {
  const cluster = (meta: Partial<Cluster['metadata']> = {}, spec: Cluster['spec'] = {}): Cluster => ({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: { name: 'c1', namespace: 'ns', ...meta },
    spec,
  });
  const withNode = machine({}, { nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'n' } }, { deletionTimestamp: DELETED_AT });
  const cp = (deletingToo = false) =>
    machine({}, {}, { name: 'cp', labels: { 'cluster.x-k8s.io/control-plane': '' }, ...(deletingToo ? { deletionTimestamp: DELETED_AT } : {}) });
  const cpObject = (status: Record<string, unknown>, meta: Partial<ContractObject['metadata']> = {}): ContractObject => ({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', ...meta },
    status,
  });
  const rows: [string, string | undefined, ReturnType<typeof nodeDeletionBlocker>][] = [
    ['allowed', undefined, nodeDeletionBlocker(cluster(), withNode, undefined, [withNode, cp()])],
    ['cluster gone', 'cluster is being deleted', nodeDeletionBlocker(undefined, withNode, undefined, [cp()])],
    ['cluster deleting', 'cluster is being deleted', nodeDeletionBlocker(cluster({ deletionTimestamp: DELETED_AT }), withNode, undefined, [cp()])],
    ['no nodeRef', 'noderef is nil', nodeDeletionBlocker(cluster(), machine(), undefined, [cp()])],
    ['no active control plane', 'no control plane members', nodeDeletionBlocker(cluster(), withNode, undefined, [withNode, cp(true)])],
    [
      'control plane deleting',
      'control plane is being deleted',
      nodeDeletionBlocker(
        cluster({}, { controlPlaneRef: { kind: 'KubeadmControlPlane', name: 'cp' } }),
        withNode,
        cpObject({}, { deletionTimestamp: DELETED_AT }),
        [cp()],
      ),
    ],
    [
      'externally managed control plane',
      undefined,
      nodeDeletionBlocker(cluster({}, { controlPlaneRef: { kind: 'X', name: 'cp' } }), withNode, cpObject({ externalManagedControlPlane: true }), []),
    ],
  ];
  for (const [name, expected, actual] of rows) assert.is(actual, expected, name);
});

test('deletion order: hooks, infrastructure, bootstrap, Node, done', () => {
  const m = machine({}, { nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'node-0' } }, { deletionTimestamp: DELETED_AT });
  const infra = provider('Metal3Machine');
  const boot = provider('KubeadmConfig');
  const going = (o: ContractObject) => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: DELETED_AT } });
  const hooked = machine({}, m.status, { ...m.metadata, annotations: { 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/ipam': '' } });
  const drainHooked = machine({}, m.status, { ...m.metadata, annotations: { 'pre-drain.delete.hook.machine.cluster.x-k8s.io/x': '' } });
  const steps = [
    nextMachineDeletionStep(hooked, true, infra, boot, false),
    nextMachineDeletionStep(drainHooked, true, infra, boot, false),
    nextMachineDeletionStep(drainHooked, false, infra, boot, false),
    nextMachineDeletionStep(m, true, infra, boot, false),
    nextMachineDeletionStep(m, true, going(infra), boot, false),
    nextMachineDeletionStep(m, true, undefined, boot, false),
    nextMachineDeletionStep(m, true, undefined, going(boot), false),
    nextMachineDeletionStep(m, true, undefined, undefined, false),
    nextMachineDeletionStep(m, true, undefined, undefined, true),
    nextMachineDeletionStep(m, false, undefined, undefined, false),
  ].map((
    s,
  ) => (s.step === 'delete' ? `delete ${s.object.kind}` : s.step === 'wait' ? `wait ${s.for}` : s.step === 'delete-node' ? `delete-node ${s.node}` : s.step));
  assert.equal(steps, [
    'wait pre-terminate hooks',
    'wait pre-drain hooks',
    'delete Metal3Machine',
    'delete Metal3Machine',
    'wait infrastructure m',
    'delete KubeadmConfig',
    'wait bootstrap m',
    'delete-node node-0',
    'done',
    'done',
  ]);
});

test('Go durations and the node deletion timeout (10 s unless set; 0 retries forever)', () => {
  assert.equal(['10s', '1m30s', '250ms', '1h', '1.5s', '0', '0s'].map(parseDuration), [10_000, 90_000, 250, 3_600_000, 1_500, 0, 0]);
  throwsKind(() => parseDuration('10'), RangeError);
  throwsKind(() => parseDuration('ten seconds'), RangeError);
  const at = Date.parse(DELETED_AT);
  const m = machine({}, {}, { deletionTimestamp: DELETED_AT });
  assert.not.ok(nodeDeletionTimedOut(m, at + 9_999));
  assert.ok(nodeDeletionTimedOut(m, at + 10_000));
  assert.not.ok(nodeDeletionTimedOut(machine({ nodeDeletionTimeout: '0s' }, {}, { deletionTimestamp: DELETED_AT }), at + 1e9));
  assert.ok(nodeDeletionTimedOut(machine({ nodeDeletionTimeout: '1s' }, {}, { deletionTimestamp: DELETED_AT }), at + 1_000));
});

test.run();
