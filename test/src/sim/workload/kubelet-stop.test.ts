// A stopped kubelet: which provisioning the annotation stops, and the Node status the node lifecycle
// controller would write for it (and once it runs again).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { KUBELET_STOPPED_ANNOTATION, kubeletStopped, reachableNode, UNREACHABLE_TAINT, unreachableNode } from './kubelet-stop.ts';
import { kubeletConditions } from './node.ts';

const test = suite('simulated kubelet: stopped by annotation, Node unreachable');
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';

function host(annotation: string | undefined, consumer: string | undefined): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { namespace: 'metal3', name: 'host-3', ...(annotation === undefined ? {} : { annotations: { [KUBELET_STOPPED_ANNOTATION]: annotation } }) },
    spec: { online: true, ...(consumer ? { consumerRef: { kind: 'Metal3Machine', name: consumer, namespace: 'metal3' } } : {}) },
  };
}

const node = (taints: Node['spec'] = {}): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'host-3' },
  spec: taints,
  status: { conditions: kubeletConditions(T0) },
});

test('the annotation stops the kubelet of the provisioning for the consumer it names, no other', () => {
  const cases: [string | undefined, string | undefined, boolean, string][] = [
    ['md-0-abc', 'md-0-abc', true, 'names the consumer'],
    ['md-0-abc', 'md-0-xyz', false, 'a new provisioning runs a fresh kubelet'],
    ['', 'md-0-abc', false, 'empty value'],
    [undefined, 'md-0-abc', false, 'no annotation'],
    ['md-0-abc', undefined, false, 'no consumer'],
  ];
  for (const [annotation, consumer, stopped, why] of cases) assert.is(kubeletStopped(host(annotation, consumer)), stopped, why);
});

test('unreachable: every condition Unknown with NodeStatusUnknown, heartbeat kept, transition now, unreachable taints added once', () => {
  const before = node({ taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
  const health = unreachableNode(before, T1);
  assert.equal(health.conditions.map((c) => [c.type, c.status, c.reason, c.lastHeartbeatTime, c.lastTransitionTime]), [
    ['MemoryPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['DiskPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['PIDPressure', 'Unknown', 'NodeStatusUnknown', T0, T1],
    ['Ready', 'Unknown', 'NodeStatusUnknown', T0, T1],
  ]);
  assert.ok(health.conditions.every((c) => c.message === 'Kubelet stopped posting node status.'));
  assert.equal(health.taints.map((t) => `${t.key}:${t.effect}`), [
    'node-role.kubernetes.io/control-plane:NoSchedule',
    `${UNREACHABLE_TAINT}:NoSchedule`,
    `${UNREACHABLE_TAINT}:NoExecute`,
  ]);
  const again = unreachableNode({ ...before, spec: { taints: health.taints }, status: { conditions: health.conditions } }, '2026-01-01T00:09:00Z');
  assert.equal(again.conditions, health.conditions, 'already Unknown: no new transition');
  assert.is(again.taints.filter((t) => t.key === UNREACHABLE_TAINT).length, 2, 'no duplicate taints');
});

test('reachable again: Ready True KubeletReady at the restart, unreachable taints lifted, others kept', () => {
  const down = node({ taints: [{ key: 'a', effect: 'NoSchedule' }, { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: T0 }] });
  const health = reachableNode(down, T1);
  assert.equal(health.taints, [{ key: 'a', effect: 'NoSchedule' }]);
  const ready = health.conditions.find((c) => c.type === 'Ready');
  assert.equal([ready?.status, ready?.reason, ready?.lastTransitionTime], ['True', 'KubeletReady', T1]);
});

test.run();
