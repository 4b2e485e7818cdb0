// D-6…D-8, E-42: what a reconcile of a Metal3Data may do, from the object and its Cluster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type DataGuard, guard } from './guards.ts';
import { CLUSTER_NAME_LABEL, METAL3_DATA_CLAIM_FINALIZER, METAL3_DATA_FINALIZER } from './names.ts';
import { cluster, data } from './testing.ts';

const test = suite('Metal3Data guards');

const deleting = (finalizers: string[]) => (d: Metal3Data) => {
  d.metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
  d.metadata.finalizers = finalizers;
};
const unlabelled = (d: Metal3Data) => {
  d.metadata.labels = {};
};
const paused = (d: Metal3Data) => {
  d.metadata.annotations = { 'cluster.x-k8s.io/paused': '' };
};

const rows: [string, Metal3Data, Cluster | undefined, DataGuard['kind']][] = [
  ['D-8: labelled, Cluster found', data(), cluster(), 'Reconcile'],
  ["deleting without our finalizer (only the allocation side's): nothing of ours", data(deleting([METAL3_DATA_CLAIM_FINALIZER])), cluster(), 'NotOurs'],
  ['E-42 (fixed): no cluster-name label is reported', data(unlabelled), undefined, 'MissingClusterLabel'],
  ['D-6: Cluster not found: wait for it', data(), undefined, 'WaitForCluster'],
  ['D-6: Cluster spec.paused', data(), cluster(true), 'Paused'],
  ['D-6: paused annotation', data(paused), cluster(), 'Paused'],
  ['D-7: deletion', data(deleting([METAL3_DATA_FINALIZER])), cluster(), 'Delete'],
  ['D-7: deletion needs neither label nor Cluster', data((d) => (deleting([METAL3_DATA_FINALIZER])(d), unlabelled(d))), undefined, 'Delete'],
  ['D-6: a paused deletion waits', data(deleting([METAL3_DATA_FINALIZER])), cluster(true), 'Paused'],
];

for (const [title, d, c, kind] of rows) {
  test(title, () => {
    assert.is(guard(d, c).kind, kind);
  });
}

test('the cluster named by a WaitForCluster is the label value', () => {
  assert.equal(guard(data((d) => (d.metadata.labels = { [CLUSTER_NAME_LABEL]: 'other' })), undefined), { kind: 'WaitForCluster', clusterName: 'other' });
});

test.run();
