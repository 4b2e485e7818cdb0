// An unhealthy kubelet: which provisioning the annotations act on, and the Node status the kubelet or
// the node lifecycle controller would write for it (and once it runs again).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import {
  KUBELET_NOT_READY_ANNOTATION,
  KUBELET_STOPPED_ANNOTATION,
  type KubeletState,
  kubeletState,
  nodeHealth,
  NOT_READY_TAINT,
  UNREACHABLE_TAINT,
} from './kubelet-state.ts';
import { kubeletConditions } from './node.ts';

const test = suite('simulated kubelet: stopped or NotReady by annotation');
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';
const T2 = '2026-01-01T00:09:00Z';

function host(annotations: Record<string, string>, consumer: string | undefined): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { namespace: 'metal3', name: 'host-3', annotations },
    spec: { online: true, ...(consumer ? { consumerRef: { kind: 'Metal3Machine', name: consumer, namespace: 'metal3' } } : {}) },
  };
}

const node = (spec: Node['spec'] = {}): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'host-3' },
  spec,
  status: { conditions: kubeletConditions(T0) },
});
const applied = (n: Node, state: KubeletState, now: string): Node => {
  const h = nodeHealth(n, state, now);
  return { ...n, spec: { ...n.spec, taints: h.taints }, status: { conditions: h.conditions } };
};
const taints = (n: Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');

test('the annotations act on the provisioning for the consumer they name, no other; stopped wins', () => {
  const S = KUBELET_STOPPED_ANNOTATION;
  const N = KUBELET_NOT_READY_ANNOTATION;
  const cases: [Record<string, string>, string | undefined, KubeletState, string][] = [
    [{ [S]: 'md-0-abc' }, 'md-0-abc', 'stopped', 'names the consumer'],
    [{ [N]: 'md-0-abc' }, 'md-0-abc', 'not-ready', 'names the consumer'],
    [{ [S]: 'md-0-abc', [N]: 'md-0-abc' }, 'md-0-abc', 'stopped', 'both: a dead kubelet posts nothing'],
    [{ [S]: 'md-0-abc' }, 'md-0-xyz', 'running', 'a new provisioning runs a fresh kubelet'],
    [{ [S]: '' }, 'md-0-abc', 'running', 'empty value'],
    [{}, 'md-0-abc', 'running', 'no annotation'],
    [{ [S]: 'md-0-abc' }, undefined, 'running', 'no consumer'],
  ];
  for (const [annotations, consumer, state, why] of cases) assert.is(kubeletState(host(annotations, consumer)), state, why);
});

test('stopped: every condition Unknown with NodeStatusUnknown, heartbeat kept, transition now, unreachable taints added once', () => {
  const before = node({ taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
  const down = applied(before, 'stopped', T1);
  assert.equal(down.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.lastHeartbeatTime, c.lastTransitionTime]), [
    ['MemoryPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['DiskPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['PIDPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['Ready', 'Unknown', 'NodeStatusUnknown', T0, T1],
  ]);
  assert.ok(down.status?.conditions?.every((c) => c.message === 'Kubelet stopped posting node status.'));
  assert.equal(taints(down), ['node-role.kubernetes.io/control-plane:NoSchedule', `${UNREACHABLE_TAINT}:NoSchedule`, `${UNREACHABLE_TAINT}:NoExecute`]);
  const again = applied(down, 'stopped', T2);
  assert.equal(again.status?.conditions, down.status?.conditions, 'already Unknown: no new transition');
  assert.equal(again.spec?.taints, down.spec?.taints, 'no duplicate taints, timeAdded kept');
});

test('not-ready: Ready False KubeletNotReady (heartbeat now), pressures kept as they were, not-ready taints instead of unreachable', () => {
  const down = applied(applied(node(), 'stopped', T1), 'not-ready', T2);
  const r = ready(down)!;
  assert.equal([r.status, r.reason, r.lastHeartbeatTime, r.lastTransitionTime], ['False', 'KubeletNotReady', T2, T2]);
  assert.match(r.message ?? '', /container runtime network not ready/);
  assert.equal(taints(down), [`${NOT_READY_TAINT}:NoSchedule`, `${NOT_READY_TAINT}:NoExecute`]);
  const fromReady = applied(node(), 'not-ready', T1);
  const memory = fromReady.status?.conditions?.find((c) => c.type === 'MemoryPressure');
  assert.equal([memory?.status, memory?.lastHeartbeatTime, memory?.lastTransitionTime], ['False', T1, T0], 'unchanged status keeps its transition');
});

test('running again: Ready True KubeletReady at the restart, lifecycle taints lifted, others kept', () => {
  const down = node({ taints: [{ key: 'a', effect: 'NoSchedule' }, { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: T0 }] });
  const up = applied(applied(down, 'stopped', T1), 'running', T2);
  assert.equal(up.spec?.taints, [{ key: 'a', effect: 'NoSchedule' }]);
  assert.equal([ready(up)?.status, ready(up)?.reason, ready(up)?.lastTransitionTime], ['True', 'KubeletReady', T2]);
});

test('RS-12 a provisioned host powered off (reboot annotation held by BMO) has a stopped kubelet; powered on, it runs', () => {
  const at = (poweredOn: boolean | undefined, state: string, annotations: Record<string, string> = {}): BareMetalHost => ({
    ...host(annotations, 'm3m-1'),
    status: { poweredOn, provisioning: { state, ID: '', image: { url: '' } }, errorCount: 0, errorMessage: '', operationalStatus: 'OK' },
  } as BareMetalHost);
  assert.is(kubeletState(at(false, 'provisioned')), 'stopped');
  assert.is(kubeletState(at(true, 'provisioned')), 'running');
  assert.is(kubeletState(at(false, 'provisioning')), 'running'); // no kubelet yet: nothing to stop
  assert.is(kubeletState(at(true, 'provisioned', { [KUBELET_NOT_READY_ANNOTATION]: 'm3m-1' })), 'not-ready');
  assert.is(kubeletState(at(false, 'provisioned', { [KUBELET_NOT_READY_ANNOTATION]: 'm3m-1' })), 'stopped');
});

test.run();
