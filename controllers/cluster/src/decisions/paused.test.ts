// C-10: the v1beta2 Paused condition from Cluster spec.paused and the annotation, with upstream's messages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { pausedCondition } from './paused.ts';

const test = suite('Metal3Cluster Paused condition');

test('C-10: Paused condition from Cluster spec.paused and the annotation, with upstream messages', () => {
  const m = newMetal3Cluster({ metadata: { name: 'm3c', namespace: 'ns', generation: 3 }, spec: {} });
  const running = newCluster({ metadata: { name: 'c1' }, spec: {} });
  const paused = newCluster({ metadata: { name: 'c1' }, spec: { paused: true } });
  assert.equal(pausedCondition(running, m), { type: 'Paused', status: 'False', reason: 'NotPaused', message: '', observedGeneration: 3 });
  assert.equal(pausedCondition(paused, m), {
    type: 'Paused',
    status: 'True',
    reason: 'Paused',
    message: 'Cluster spec.paused is set to true',
    observedGeneration: 3,
  });
  m.metadata.annotations = { 'cluster.x-k8s.io/paused': 'true' };
  assert.is(pausedCondition(undefined, m).message, 'Metal3Cluster has the cluster.x-k8s.io/paused annotation');
  assert.is(pausedCondition(paused, m).message, 'Cluster spec.paused is set to true, Metal3Cluster has the cluster.x-k8s.io/paused annotation');
});

test.run();
