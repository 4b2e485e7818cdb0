import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { KubeadmControlPlane } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { bootstrapSpecFor, controlPlaneLabels, controlPlaneMachine, kubeadmConfigFor } from './controlplane-machine.ts';
import {
  type ControlPlaneAction,
  type ControlPlaneMachine,
  controlPlaneMaxSurge,
  controlPlaneStatus,
  failureDomainForScaleUp,
  lowestVersion,
  machineForScaleDown,
  planControlPlane,
  rolloutReason,
} from './controlplane-plan.ts';

const test = suite('KubeadmControlPlane planning (pure)');

let seq = 0;
const m = (extra: Partial<ControlPlaneMachine> = {}): ControlPlaneMachine => ({
  name: `cp-${++seq}`,
  createdAt: `2030-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
  running: true,
  deleting: false,
  outdated: false,
  ...extra,
});

const plans: { name: string; replicas: number; maxSurge?: number; machines: ControlPlaneMachine[]; want: ControlPlaneAction }[] = [
  { name: 'nothing yet: initialize', replicas: 3, machines: [], want: { type: 'initialize' } },
  {
    name: 'first Machine not Running yet: wait before joining',
    replicas: 3,
    machines: [m({ name: 'a', running: false })],
    want: { type: 'wait', reason: 'waiting for Machine a to be Running' },
  },
  { name: 'first Machine Running: scale up', replicas: 3, machines: [m()], want: { type: 'scaleUp' } },
  { name: 'all there: nothing to do', replicas: 3, machines: [m(), m(), m()], want: { type: 'none' } },
  {
    name: 'a Machine being deleted: wait',
    replicas: 3,
    machines: [m(), m({ name: 'gone', deleting: true })],
    want: { type: 'wait', reason: 'waiting for Machine gone to be deleted' },
  },
  {
    name: 'one too many: scale down the oldest',
    replicas: 1,
    machines: [m({ name: 'young', createdAt: '2030-01-02T00:00:00Z' }), m({ name: 'old', createdAt: '2030-01-01T00:00:00Z' })],
    want: { type: 'scaleDown', machine: 'old' },
  },
  {
    name: 'scale down prefers outdated over older',
    replicas: 1,
    machines: [m({ name: 'old', createdAt: '2030-01-01T00:00:00Z' }), m({ name: 'stale', createdAt: '2030-01-02T00:00:00Z', outdated: true })],
    want: { type: 'scaleDown', machine: 'stale' },
  },
  {
    name: 'rollout, at replicas: surge by one',
    replicas: 3,
    machines: [m({ outdated: true }), m({ outdated: true }), m({ outdated: true })],
    want: { type: 'scaleUp' },
  },
  {
    name: 'rollout, surged and settled: delete the oldest outdated',
    replicas: 3,
    machines: [
      m({ name: 'o1', outdated: true, createdAt: '2030-01-01T00:00:01Z' }),
      m({ name: 'o2', outdated: true, createdAt: '2030-01-01T00:00:02Z' }),
      m({ name: 'o3', outdated: true, createdAt: '2030-01-01T00:00:03Z' }),
      m({ name: 'n1' }),
    ],
    want: { type: 'scaleDown', machine: 'o1' },
  },
  {
    name: 'rollout, surged but the new Machine is not Running: wait',
    replicas: 3,
    machines: [m({ outdated: true }), m({ outdated: true }), m({ outdated: true }), m({ name: 'new', running: false })],
    want: { type: 'wait', reason: 'waiting for Machine new to be Running' },
  },
  {
    name: 'rollout with maxSurge 0: delete first',
    replicas: 3,
    maxSurge: 0,
    machines: [
      m({ name: 'x1', outdated: true, createdAt: '2030-01-01T00:00:01Z' }),
      m({ outdated: true, createdAt: '2030-01-01T00:00:02Z' }),
      m({ outdated: true, createdAt: '2030-01-01T00:00:03Z' }),
    ],
    want: { type: 'scaleDown', machine: 'x1' },
  },
  {
    name: 'rollout with maxSurge 0, one short: replace',
    replicas: 3,
    maxSurge: 0,
    machines: [m({ outdated: true }), m({ outdated: true })],
    want: { type: 'scaleUp' },
  },
  {
    name: 'scale down picks from the failure domain holding most',
    replicas: 2,
    machines: [
      m({ name: 'a1', failureDomain: 'a', createdAt: '2030-01-01T00:00:01Z' }),
      m({ name: 'b1', failureDomain: 'b', createdAt: '2030-01-01T00:00:02Z' }),
      m({ name: 'b2', failureDomain: 'b', createdAt: '2030-01-01T00:00:03Z' }),
    ],
    want: { type: 'scaleDown', machine: 'b1' },
  },
];

for (const c of plans) {
  test(`plan: ${c.name}`, () => {
    assert.equal(planControlPlane({ replicas: c.replicas, maxSurge: c.maxSurge ?? 1, machines: c.machines }), c.want);
  });
}

test('failure domains: scale up into the domain with fewest up-to-date Machines', () => {
  assert.is(failureDomainForScaleUp([], [m()]), undefined);
  assert.is(failureDomainForScaleUp(['b', 'a'], []), 'a');
  assert.is(failureDomainForScaleUp(['a', 'b', 'c'], [m({ failureDomain: 'a' }), m({ failureDomain: 'b' }), m({ failureDomain: 'c', outdated: true })]), 'c');
  assert.is(machineForScaleDown([]), undefined);
});

const kcp: KubeadmControlPlane = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'cp', namespace: 'ns', uid: 'kcp-uid', generation: 7 },
  spec: {
    replicas: 3,
    version: 'v1.31.0',
    machineTemplate: {
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'cp-v1' },
      metadata: { labels: { tier: 'cp' }, annotations: { note: 'x' } },
      nodeDrainTimeout: '1m',
    },
    kubeadmConfigSpec: {
      clusterConfiguration: { apiServer: { certSANs: ['a'] } },
      initConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.name }}' } },
      joinConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.name }}' } },
      files: [{ path: '/etc/x', content: 'y' }],
    },
  },
};

function machine(version: string, annotations: Record<string, string> = {}, created = '2030-01-01T00:00:00Z'): Machine {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'cp-x', annotations, creationTimestamp: created },
    spec: { clusterName: 'c1', version, bootstrap: {}, infrastructureRef: {} },
  };
}

test('rollout reasons: version, infrastructure template, cluster configuration, rolloutAfter; unknown provenance is no mismatch', () => {
  const now = Date.parse('2030-06-01T00:00:00Z');
  const sameInfra = { name: 'cp-v1', groupKind: 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io' };
  const config = JSON.stringify(kcp.spec?.kubeadmConfigSpec.clusterConfiguration);
  const annotated = { 'controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration': config };
  assert.is(rolloutReason(kcp, machine('v1.31.0', annotated), sameInfra, now), undefined);
  assert.is(rolloutReason(kcp, machine('v1.31.0'), undefined, now), undefined);
  assert.is(rolloutReason(kcp, machine('v1.31.0'), {}, now), undefined);
  assert.match(rolloutReason(kcp, machine('v1.30.2'), sameInfra, now) ?? '', /version v1.30.2 != v1.31.0/);
  assert.match(rolloutReason(kcp, machine('v1.31.0'), { ...sameInfra, name: 'cp-v0' }, now) ?? '', /infrastructure template/);
  assert.match(
    rolloutReason(kcp, machine('v1.31.0', { 'controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration': '{}' }), sameInfra, now) ?? '',
    /cluster configuration/,
  );
  const after = { ...kcp, spec: { ...kcp.spec!, rolloutAfter: '2030-03-01T00:00:00Z' } };
  assert.match(rolloutReason(after, machine('v1.31.0'), sameInfra, now) ?? '', /rolloutAfter/);
  assert.is(rolloutReason(after, machine('v1.31.0', {}, '2030-04-01T00:00:00Z'), sameInfra, now), undefined);
  assert.is(rolloutReason(after, machine('v1.31.0'), sameInfra, Date.parse('2030-02-01T00:00:00Z')), undefined);
});

test('maxSurge defaults to 1 and is at most 1', () => {
  assert.is(controlPlaneMaxSurge(kcp), 1);
  assert.is(controlPlaneMaxSurge({ ...kcp, spec: { ...kcp.spec!, rolloutStrategy: { rollingUpdate: { maxSurge: 0 } } } }), 0);
  assert.is(controlPlaneMaxSurge({ ...kcp, spec: { ...kcp.spec!, rolloutStrategy: { rollingUpdate: { maxSurge: 3 } } } }), 1);
});

test('lowest version', () => {
  assert.is(lowestVersion(['v1.31.0', 'v1.30.10', 'v1.30.9']), 'v1.30.9');
  assert.is(lowestVersion(['v1.31.0', 'v1.31.0-rc.1']), 'v1.31.0-rc.1');
  assert.is(lowestVersion([]), undefined);
});

test('status: counts, selector, lowest version; initialized and ready turn true with the first Running Machine and stay', () => {
  const running = (name: string, version: string): Machine => ({ ...machine(version), metadata: { name }, status: { phase: 'Running', nodeRef: { name } } });
  const pending = { ...machine('v1.31.0'), metadata: { name: 'p' } };
  let status = controlPlaneStatus(kcp, 'c1', [pending], new Set());
  assert.equal({ r: status.replicas, rd: status.readyReplicas, i: status.initialized, ok: status.ready }, { r: 1, rd: 0, i: false, ok: false });
  status = controlPlaneStatus(kcp, 'c1', [running('a', 'v1.30.0'), running('b', 'v1.31.0'), pending], new Set(['a']));
  assert.equal(
    {
      r: status.replicas,
      u: status.updatedReplicas,
      rd: status.readyReplicas,
      un: status.unavailableReplicas,
      i: status.initialized,
      ok: status.ready,
      v: status.version,
      g: status.observedGeneration,
      s: status.selector,
    },
    { r: 3, u: 2, rd: 2, un: 1, i: true, ok: true, v: 'v1.30.0', g: 7, s: 'cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/control-plane' },
  );
  const later = controlPlaneStatus({ ...kcp, status }, 'c1', [pending], new Set());
  assert.ok(later.initialized && later.ready, 'sticky');
});

test('KubeadmConfig of the first Machine keeps init and cluster configuration; joiners get join with a controlPlane section', () => {
  const init = bootstrapSpecFor(kcp, true);
  assert.ok(init.initConfiguration && init.clusterConfiguration);
  assert.is(init.joinConfiguration, undefined);
  const join = bootstrapSpecFor(kcp, false);
  assert.is(join.initConfiguration, undefined);
  assert.is(join.clusterConfiguration, undefined);
  assert.equal(join.joinConfiguration?.controlPlane, {});
  assert.equal(join.files, [{ path: '/etc/x', content: 'y' }]);
  const config = kubeadmConfigFor(kcp, 'cp-abcde', 'c1', false);
  assert.equal(config.metadata.labels, {
    tier: 'cp',
    'cluster.x-k8s.io/cluster-name': 'c1',
    'cluster.x-k8s.io/control-plane': '',
    'cluster.x-k8s.io/control-plane-name': 'cp',
  });
  assert.equal(config.metadata.ownerReferences, [{
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
    kind: 'KubeadmControlPlane',
    name: 'cp',
    uid: 'kcp-uid',
  }]);
  assert.equal(config.metadata.annotations, { note: 'x' });
});

test('control-plane Machine: labels, configuration annotation, controller owner, finalizer, version, refs', () => {
  const machineObj = controlPlaneMachine(kcp, 'cp-abcde', 'c1', {
    infrastructureRef: { name: 'cp-abcde' },
    bootstrapConfigRef: { name: 'cp-abcde' },
    failureDomain: 'fd-a',
  });
  assert.equal(machineObj.metadata.labels, controlPlaneLabels(kcp, 'c1'));
  assert.is(
    machineObj.metadata.annotations?.['controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration'],
    JSON.stringify({ apiServer: { certSANs: ['a'] } }),
  );
  assert.is(machineObj.metadata.annotations?.['note'], 'x');
  assert.equal(machineObj.metadata.ownerReferences, [{
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
    kind: 'KubeadmControlPlane',
    name: 'cp',
    uid: 'kcp-uid',
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assert.equal(machineObj.metadata.finalizers, ['machine.cluster.x-k8s.io']);
  assert.equal(
    { v: machineObj.spec?.version, fd: machineObj.spec?.failureDomain, drain: machineObj.spec?.nodeDrainTimeout, c: machineObj.spec?.clusterName },
    { v: 'v1.31.0', fd: 'fd-a', drain: '1m', c: 'c1' },
  );
});

test.run();
