import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MachineDeploymentSpecTemplate } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { fnv1a32, safeEncode, sameRevision, templateHash } from './machinedeployment-hash.ts';

const test = suite('MachineDeployment template revision hash');

const base: MachineDeploymentSpecTemplate = {
  metadata: { labels: { a: '1' } },
  spec: {
    clusterName: 'c1',
    version: 'v1.31.0',
    bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate', name: 'kct' } },
    infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'm3mt-v1' },
  },
};

const changed = (patch: (t: MachineDeploymentSpecTemplate) => void): MachineDeploymentSpecTemplate => {
  const copy = structuredClone(base);
  patch(copy);
  return copy;
};

test('FNV-1a 32 matches the published test vectors', () => {
  assert.is(fnv1a32(''), 0x811c9dc5);
  assert.is(fnv1a32('a'), 0xe40c292c);
  assert.is(fnv1a32('foobar'), 0xbf9cf968);
});

test('safe encoding uses only the no-vowel alphabet', () => {
  assert.match(safeEncode(0xffffffff), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.is(safeEncode(0), 'b');
});

const rollouts: { name: string; template: MachineDeploymentSpecTemplate; rolls: boolean }[] = [
  { name: 'same template', template: structuredClone(base), rolls: false },
  { name: 'labels changed (in-place)', template: changed((t) => (t.metadata = { labels: { a: '2' } })), rolls: false },
  { name: 'nodeDrainTimeout changed (in-place)', template: changed((t) => (t.spec!.nodeDrainTimeout = '10s')), rolls: false },
  {
    name: 'infrastructure template apiVersion bumped (same group)',
    template: changed((t) => (t.spec!.infrastructureRef.apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta2')),
    rolls: false,
  },
  { name: 'infrastructure template renamed', template: changed((t) => (t.spec!.infrastructureRef.name = 'm3mt-v2')), rolls: true },
  { name: 'bootstrap template renamed', template: changed((t) => (t.spec!.bootstrap.configRef!.name = 'kct-2')), rolls: true },
  { name: 'version changed', template: changed((t) => (t.spec!.version = 'v1.32.0')), rolls: true },
  { name: 'failure domain changed', template: changed((t) => (t.spec!.failureDomain = 'fd-2')), rolls: true },
];

for (const c of rollouts) {
  test(`rollout needed: ${c.name} → ${c.rolls}`, () => {
    assert.is(!sameRevision(base, c.template), c.rolls);
    assert.is(templateHash(base) !== templateHash(c.template), c.rolls);
  });
}

test.run();
