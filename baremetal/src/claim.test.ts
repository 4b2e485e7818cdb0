import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { claimedHost } from './claim.ts';
import { hostMergePatch } from './host-patch.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host claim (pure part)');

const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';

test('M-24: consumerRef carries exactly apiVersion, kind, name and namespace; uid makes a controller owner reference', () => {
  const claimed = claimedHost(testHost('h'), { consumer: machineRef('m-0', 'ns', 'uid-m') });
  assert.equal(claimed.spec?.consumerRef, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', namespace: 'ns' });
  assert.equal(claimed.metadata.ownerReferences, [
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', uid: 'uid-m', controller: true },
  ]);
  assert.is(claimedHost(testHost('h'), { consumer: machineRef('m-0') }).metadata.ownerReferences, undefined, 'no uid: no owner reference');
  assert.throws(() => claimedHost(testHost('h'), { consumer: machineRef('m-0'), controllerOwner: true }), TypeError);
});

test('M-24: an owner reference of the same name, kind and group is updated in place; others are kept', () => {
  const host = testHost('h');
  host.metadata.ownerReferences = [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'u-cm' },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5', kind: 'Metal3Machine', name: 'm-0', uid: 'old-uid' },
  ];
  const claimed = claimedHost(host, { consumer: machineRef('m-0', 'ns', 'new-uid') });
  assert.equal(claimed.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'u-cm' },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', uid: 'new-uid', controller: true },
  ]);
});

test('M-22, M-24, N-6: labels and annotations are set, the node-reuse reservation is removed, the rest is kept', () => {
  const host = testHost('h', { labels: { [REUSE]: 'md-a', rack: 'r1' }, annotations: { note: 'x' } });
  const claimed = claimedHost(host, { consumer: machineRef('m-0'), labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: { extra: 'y' } });
  assert.equal(claimed.metadata.labels, { rack: 'r1', 'cluster.x-k8s.io/cluster-name': 'c1' });
  assert.equal(claimed.metadata.annotations, { note: 'x', extra: 'y' });
  assert.is(claimed.spec?.online, false, "power is provisioning's business, not the claim's");
  assert.is(host.spec?.consumerRef, undefined, 'the input host is not mutated');
});

test('the claim patch is locked on the resourceVersion and replaces ownerReferences whole', () => {
  const host = testHost('h', { resourceVersion: '7', labels: { [REUSE]: 'md-a' } });
  const patch = hostMergePatch(host, claimedHost(host, { consumer: machineRef('m-0', 'ns', 'u') }), { optimisticLock: true });
  assert.equal(patch, {
    metadata: {
      labels: { [REUSE]: null },
      ownerReferences: [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', uid: 'u', controller: true }],
      resourceVersion: '7',
    },
    spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', namespace: 'ns' } },
  });
});

test('re-claiming a host already claimed exactly as asked needs no patch (idempotent)', () => {
  const claim = { consumer: machineRef('m-0', 'ns', 'u'), labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } };
  const once = claimedHost(testHost('h'), claim);
  assert.is(hostMergePatch(once, claimedHost(once, claim), { optimisticLock: true }), undefined);
});

test.run();
