// C-8, C-9, C-13, C-14: what a pass over a live Metal3Cluster found, for every guard decision.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Cluster, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type Finding, findOutcome, type LiveGuard } from './outcome.ts';

const test = suite('Metal3Cluster findings');

const m3c = (port: number): Metal3Cluster =>
  newMetal3Cluster({ metadata: { name: 'm3c', namespace: 'ns' }, spec: { controlPlaneEndpoint: { host: '10.0.0.1', port } } });
const cluster = newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: {} });

const rows: [string, LiveGuard, number, Finding][] = [
  ['C-9: paused: nothing but the summaries, a log line', { kind: 'Paused' }, 6443, {
    outcome: { kind: 'Unchanged' },
    log: 'Reconciliation is paused for this object',
  }],
  [
    "C-9: no owner reference yet: upstream's log line, no wait (the reference is an event of ours)",
    { kind: 'WaitForOwnerRef' },
    6443,
    { outcome: { kind: 'Unchanged' }, log: 'Waiting for Cluster Controller to set OwnerRef on Metal3Cluster' },
  ],
  [
    "C-8: owner Cluster missing: upstream's message, a Warning, look again after the safety-net wait",
    { kind: 'OwnerClusterMissing', clusterName: 'c1' },
    6443,
    {
      outcome: { kind: 'OwnerClusterMissing', message: 'Unable to get owner cluster: Cluster ns/c1 not found' },
      warning: 'FailedToGetOwnerCluster',
      requeue: true,
    },
  ],
  ['C-14: owner found, endpoint valid: ready', { kind: 'Reconcile', cluster }, 6443, { outcome: { kind: 'Ready' } }],
];

for (const [name, decision, port, want] of rows) {
  test(name, () => assert.equal(findOutcome(decision, m3c(port)), want));
}

test('C-13 (changed): an invalid endpoint is a finding naming the field, with a Warning, not an error', () => {
  const { outcome, ...rest } = findOutcome({ kind: 'Reconcile', cluster }, m3c(70000));
  assert.equal(rest, { warning: 'ControlPlaneEndpointFailed' });
  assert.is(outcome.kind, 'EndpointInvalid');
  assert.match((outcome as { message: string }).message, /^spec\.controlPlaneEndpoint\.port: Invalid value: 70000/);
});

test.run();
