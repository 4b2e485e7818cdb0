// The Cluster controller's decisions as tables: phase, what comes from the infrastructure cluster and
// the control plane, ControlPlaneInitialized, and the deletion order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import {
  applyControlPlane,
  applyControlPlaneInitialized,
  applyInfrastructureCluster,
  type ClusterDescendants,
  clusterPhase,
  finishClusterStatus,
  planClusterDeletion,
} from './cluster-status.ts';
import type { ContractObject } from './contract.ts';

const test = suite('Cluster controller decisions');

const INFRA_REF = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster', name: 'c1' };
const CP_REF = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: 'c1-cp' };
const DELETED_AT = '2026-01-01T00:00:00Z';

function cluster(spec: Cluster['spec'] = {}, status: Cluster['status'] = {}, meta: Partial<Cluster['metadata']> = {}): Cluster {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: { name: 'c1', namespace: 'ns', uid: 'uid-c1', generation: 3, ...meta },
    spec,
    status,
  };
}

function infra(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}, meta: Partial<KubeObject['metadata']> = {}): ContractObject {
  return { apiVersion: INFRA_REF.apiVersion, kind: INFRA_REF.kind, metadata: { name: 'c1', namespace: 'ns', ...meta }, spec, status };
}

function machine(name: string, options: { controlPlane?: boolean; nodeRef?: boolean; deleting?: boolean; ownedByCluster?: boolean } = {}): Machine {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: 'ns',
      labels: { 'cluster.x-k8s.io/cluster-name': 'c1', ...(options.controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}) },
      ...(options.deleting ? { deletionTimestamp: DELETED_AT } : {}),
      ...(options.ownedByCluster ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'uid-c1' }] } : {}),
    },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { apiVersion: 'x/v1', kind: 'K', name: name } },
    status: options.nodeRef ? { nodeRef: { apiVersion: 'v1', kind: 'Node', name } } : {},
  };
}

const condition = (c: Cluster, type: string) => {
  const found = getCondition(c, type);
  return found ? [found.status, found.reason ?? '', found.severity ?? ''] : undefined;
};

test('phase: later rules win, and a Cluster nothing applies to keeps its phase', () => {
  const endpoint = { host: '192.168.111.249', port: 6443 };
  const rows: [string, Cluster, string][] = [
    ['new, no refs', cluster(), 'Pending'],
    ['no refs keeps a previous phase', cluster({}, { phase: 'Provisioned' }), 'Provisioned'],
    ['infrastructure ref', cluster({ infrastructureRef: INFRA_REF }), 'Provisioning'],
    ['control plane ref only', cluster({ controlPlaneRef: CP_REF }), 'Provisioning'],
    ['ready without endpoint', cluster({ infrastructureRef: INFRA_REF }, { infrastructureReady: true }), 'Provisioning'],
    ['endpoint without ready', cluster({ infrastructureRef: INFRA_REF, controlPlaneEndpoint: endpoint }), 'Provisioning'],
    ['ready with endpoint', cluster({ infrastructureRef: INFRA_REF, controlPlaneEndpoint: endpoint }, { infrastructureReady: true }), 'Provisioned'],
    [
      'port 0 is no endpoint',
      cluster({ infrastructureRef: INFRA_REF, controlPlaneEndpoint: { host: 'h', port: 0 } }, { infrastructureReady: true }),
      'Provisioning',
    ],
    ['failure', cluster({ infrastructureRef: INFRA_REF }, { infrastructureReady: true, failureReason: 'InvalidConfiguration' }), 'Failed'],
    ['deleting beats failure', cluster({ infrastructureRef: INFRA_REF }, { failureMessage: 'x' }, { deletionTimestamp: DELETED_AT }), 'Deleting'],
  ];
  for (const [name, c, phase] of rows) assert.is(clusterPhase(c), phase, name);
});

test('infrastructure not ready: infrastructureReady false, WaitingForInfrastructure, no endpoint copied', () => {
  const c = cluster({ infrastructureRef: INFRA_REF });
  applyInfrastructureCluster(c, infra({ controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } }, { ready: false }));
  assert.is(c.status?.infrastructureReady, false);
  assert.equal(condition(c, 'InfrastructureReady'), ['False', 'WaitingForInfrastructure', 'Info']);
  assert.is(c.spec?.controlPlaneEndpoint, undefined);
});

test('infrastructure ready: endpoint copied back when the Cluster has none, failure domains taken', () => {
  const c = cluster({ infrastructureRef: INFRA_REF });
  applyInfrastructureCluster(
    c,
    infra({ controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } }, { ready: true, failureDomains: { rack1: { controlPlane: true } } }),
  );
  assert.is(c.status?.infrastructureReady, true);
  assert.equal(condition(c, 'InfrastructureReady'), ['True', '', '']);
  assert.equal(c.spec?.controlPlaneEndpoint, { host: '10.0.0.1', port: 6443 });
  assert.equal(c.status?.failureDomains, { rack1: { controlPlane: true } });
  finishClusterStatus(c);
  assert.is(c.status?.phase, 'Provisioned');
  assert.is(c.status?.observedGeneration, 3);
  assert.equal(condition(c, 'Ready'), ['True', '', '']);
});

test('infrastructure ready: an endpoint the Cluster already has is kept', () => {
  const c = cluster({ infrastructureRef: INFRA_REF, controlPlaneEndpoint: { host: 'mine', port: 443 } });
  applyInfrastructureCluster(c, infra({ controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } }, { ready: true }));
  assert.equal(c.spec?.controlPlaneEndpoint, { host: 'mine', port: 443 });
});

test('infrastructure failures surface on the Cluster in CAPI wording; a deleting infrastructure is otherwise ignored', () => {
  const c = cluster({ infrastructureRef: INFRA_REF }, { infrastructureReady: true });
  applyInfrastructureCluster(
    c,
    infra({}, { ready: false, failureReason: 'InvalidConfiguration', failureMessage: 'Invalid Metal3Cluster provided' }, { deletionTimestamp: DELETED_AT }),
  );
  assert.is(c.status?.failureReason, 'InvalidConfiguration');
  assert.is(
    c.status?.failureMessage,
    'Failure detected from referenced resource infrastructure.cluster.x-k8s.io/v1beta1, Kind=Metal3Cluster with name "c1": Invalid Metal3Cluster provided',
  );
  assert.is(c.status?.infrastructureReady, true, 'unchanged while the infrastructure is being deleted');
  assert.is(clusterPhase(c), 'Failed');
});

test('control plane: ready, initialized once and for good, endpoint from the control plane', () => {
  const c = cluster({ controlPlaneRef: CP_REF });
  const cp = (status: Record<string, unknown>): ContractObject => ({
    apiVersion: CP_REF.apiVersion,
    kind: CP_REF.kind,
    metadata: { name: 'c1-cp', namespace: 'ns' },
    spec: { controlPlaneEndpoint: { host: 'vip', port: 6443 } },
    status,
  });
  applyControlPlane(c, cp({}));
  assert.equal([c.status?.controlPlaneReady, condition(c, 'ControlPlaneReady'), condition(c, 'ControlPlaneInitialized')], [
    false,
    ['False', 'WaitingForControlPlane', 'Info'],
    ['False', 'WaitingForControlPlaneProviderInitialized', 'Info'],
  ]);
  applyControlPlane(c, cp({ ready: true, initialized: true }));
  assert.equal([c.status?.controlPlaneReady, condition(c, 'ControlPlaneReady'), condition(c, 'ControlPlaneInitialized')], [true, ['True', '', ''], [
    'True',
    '',
    '',
  ]]);
  applyControlPlane(c, cp({ ready: false, initialized: false }));
  assert.equal(condition(c, 'ControlPlaneInitialized'), ['True', '', ''], 'never taken back');
  assert.equal(c.spec?.controlPlaneEndpoint, { host: 'vip', port: 6443 });
});

test('ControlPlaneInitialized without a control-plane provider: the first active control-plane Machine with a nodeRef', () => {
  const rows: [string, Machine[], string[] | undefined][] = [
    ['no machines', [], ['False', 'MissingNodeRef', 'Info']],
    ['worker with nodeRef', [machine('w', { nodeRef: true })], ['False', 'MissingNodeRef', 'Info']],
    ['control plane without nodeRef', [machine('cp', { controlPlane: true })], ['False', 'MissingNodeRef', 'Info']],
    ['deleting control plane with nodeRef', [machine('cp', { controlPlane: true, nodeRef: true, deleting: true })], ['False', 'MissingNodeRef', 'Info']],
    ['control plane with nodeRef', [machine('cp', { controlPlane: true, nodeRef: true })], ['True', '', '']],
  ];
  for (const [name, machines, expected] of rows) {
    const c = cluster({ infrastructureRef: INFRA_REF });
    applyControlPlaneInitialized(c, machines);
    assert.equal(condition(c, 'ControlPlaneInitialized'), expected, name);
  }
  const withProvider = cluster({ controlPlaneRef: CP_REF });
  applyControlPlaneInitialized(withProvider, [machine('cp', { controlPlane: true, nodeRef: true })]);
  assert.is(condition(withProvider, 'ControlPlaneInitialized'), undefined, 'the control-plane provider decides');
});

const none: ClusterDescendants = { machineDeployments: [], machineSets: [], machines: [] };
const names = (objects: readonly Readonly<KubeObject>[]) => objects.map((o) => o.metadata.name);

test('deletion: owned descendants are deleted (control-plane Machines last), all descendants are waited for', () => {
  const c = cluster({ infrastructureRef: INFRA_REF }, {}, { deletionTimestamp: DELETED_AT });
  const md: KubeObject = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    metadata: { name: 'md', namespace: 'ns', ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'uid-c1' }] },
  };
  const plan = planClusterDeletion(
    c,
    {
      machineDeployments: [md],
      machineSets: [],
      machines: [
        machine('cp', { controlPlane: true, ownedByCluster: true }),
        machine('from-ms'),
        machine('standalone', { ownedByCluster: true }),
        machine('going', { ownedByCluster: true, deleting: true }),
      ],
    },
    undefined,
    infra(),
  );
  assert.equal(names(plan.delete), ['md', 'standalone', 'cp']);
  assert.ok(plan.waitingFor?.startsWith('descendants'));
  assert.ok(plan.waitingFor?.includes('from-ms'), 'indirect descendants are waited for too');
});

test('deletion: with a control-plane provider its Machines are its business; then the control plane, then the infrastructure', () => {
  const c = cluster({ infrastructureRef: INFRA_REF, controlPlaneRef: CP_REF }, {}, { deletionTimestamp: DELETED_AT });
  const cp: ContractObject = { apiVersion: CP_REF.apiVersion, kind: CP_REF.kind, metadata: { name: 'c1-cp', namespace: 'ns' } };
  const step1 = planClusterDeletion(c, { ...none, machines: [machine('cp-0', { controlPlane: true })] }, cp, infra());
  assert.equal([names(step1.delete), step1.waitingFor], [['c1-cp'], 'control plane c1-cp']);
  assert.equal(condition(c, 'ControlPlaneReady'), ['False', 'Deleting', 'Info']);
  const step2 = planClusterDeletion(c, none, { ...cp, metadata: { ...cp.metadata, deletionTimestamp: DELETED_AT } }, infra());
  assert.equal([names(step2.delete), step2.waitingFor], [[], 'control plane c1-cp'], 'no second delete');
  const step3 = planClusterDeletion(c, none, undefined, infra());
  assert.equal([names(step3.delete), step3.waitingFor], [['c1'], 'infrastructure c1']);
  assert.equal(condition(c, 'ControlPlaneReady'), ['False', 'Deleted', 'Info']);
  assert.equal(condition(c, 'InfrastructureReady'), ['False', 'Deleting', 'Info']);
  const step4 = planClusterDeletion(c, none, undefined, undefined);
  assert.equal([names(step4.delete), step4.waitingFor], [[], undefined]);
  assert.equal(condition(c, 'InfrastructureReady'), ['False', 'Deleted', 'Info']);
  finishClusterStatus(c);
  assert.is(c.status?.phase, 'Deleting');
});

test.run();
