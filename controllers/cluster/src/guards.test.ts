// C-3, C-8…C-12, E-13: what a reconcile may do, from the Metal3Cluster and its owner Cluster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Cluster, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Cluster, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { clusterNameOf, type Guard, guard, ownerClusterRef } from './guards.ts';
import { METAL3_CLUSTER_FINALIZER } from './names.ts';

const test = suite('Metal3Cluster guards');

const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'u1', controller: true };

interface Shape {
  owned?: boolean;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  deleting?: boolean;
  finalizer?: boolean;
}

function m3c(shape: Shape = {}): Metal3Cluster {
  return newMetal3Cluster({
    metadata: {
      name: 'm3c',
      namespace: 'ns',
      ...(shape.owned ? { ownerReferences: [owner] } : {}),
      ...(shape.annotations ? { annotations: shape.annotations } : {}),
      ...(shape.labels ? { labels: shape.labels } : {}),
      ...(shape.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
      ...(shape.finalizer ? { finalizers: [METAL3_CLUSTER_FINALIZER] } : {}),
    },
    spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } },
  });
}

const cluster = (paused = false): Cluster => newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: { paused } });
const MANAGED = { 'cluster.x-k8s.io/managed-by': 'someone' };
const PAUSED = { 'cluster.x-k8s.io/paused': '' };

const rows: [string, Metal3Cluster, Cluster | undefined, Guard['kind']][] = [
  [
    'C-3: externally managed wins over everything',
    m3c({ owned: true, annotations: MANAGED, deleting: true, finalizer: true }),
    cluster(true),
    'ExternallyManaged',
  ],
  ['deleting without our finalizer: nothing to do', m3c({ owned: true, deleting: true }), cluster(), 'NotOurs'],
  ['C-10: Cluster spec.paused', m3c({ owned: true }), cluster(true), 'Paused'],
  ['C-10: paused annotation, no owner yet', m3c({ annotations: PAUSED }), undefined, 'Paused'],
  ['C-10: a paused object being deleted keeps its finalizer until unpaused', m3c({ owned: true, deleting: true, finalizer: true }), cluster(true), 'Paused'],
  ['C-11: deletion', m3c({ owned: true, deleting: true, finalizer: true }), cluster(), 'Delete'],
  ['E-13 (fixed): deletion without an ownerReference', m3c({ deleting: true, finalizer: true }), undefined, 'Delete'],
  ['E-13 (fixed): deletion with the owner Cluster gone', m3c({ owned: true, deleting: true, finalizer: true }), undefined, 'Delete'],
  ['C-9: no ownerReference: wait for Cluster API', m3c(), undefined, 'WaitForOwnerRef'],
  ['C-8: owner Cluster missing', m3c({ owned: true }), undefined, 'OwnerClusterMissing'],
  ['C-12…C-14: owner found', m3c({ owned: true }), cluster(), 'Reconcile'],
];

for (const [name, obj, c, want] of rows) {
  test(name, () => assert.is(guard(Object.freeze(obj), c).kind, want));
}

test('the decision carries the names it needs', () => {
  assert.equal(guard(m3c({ owned: true }), undefined), { kind: 'OwnerClusterMissing', clusterName: 'c1' });
  assert.equal(guard(m3c({ deleting: true, finalizer: true, labels: { 'cluster.x-k8s.io/cluster-name': 'from-label' } }), undefined), {
    kind: 'Delete',
    clusterName: 'from-label',
  });
  assert.equal(guard(m3c({ deleting: true, finalizer: true }), undefined), { kind: 'Delete', clusterName: undefined });
});

test('C-8: the owner is the first Cluster reference of group cluster.x-k8s.io, any version', () => {
  const obj = m3c();
  obj.metadata.ownerReferences = [
    { apiVersion: 'example.com/v1', kind: 'Cluster', name: 'other', uid: 'x' },
    { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c2', uid: 'y' },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c3', uid: 'z' },
  ];
  assert.is(ownerClusterRef(obj)?.name, 'c2');
  obj.metadata.labels = { 'cluster.x-k8s.io/cluster-name': 'label' };
  assert.is(clusterNameOf(obj), 'c2', 'the owner wins over the label');
});

test.run();
