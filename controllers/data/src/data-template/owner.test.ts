// DT-6: the template's ownerReference to its Cluster, added once with a guarded JSON patch.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cluster, template } from '../testing.ts';
import { clusterOwnerReference, ownerReferencePatch } from './owner.ts';

const test = suite('Metal3DataTemplate Cluster owner reference');

const ref = clusterOwnerReference(cluster());

test('DT-6: the reference upstream appends, controller false', () => {
  assert.equal(ref, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'c1-uid', controller: false });
});

test('DT-6: no references yet: the list is created, guarded by its absence', () => {
  assert.equal(ownerReferencePatch(template(), ref), [
    { op: 'test', path: '/metadata/ownerReferences', value: null },
    { op: 'add', path: '/metadata/ownerReferences', value: [ref] },
  ]);
});

test('DT-6: other references are kept: the patch appends, guarded by the list it saw', () => {
  const other = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster', name: 'm3c', uid: 'm' };
  assert.equal(ownerReferencePatch(template((t) => (t.metadata.ownerReferences = [other])), ref), [
    { op: 'test', path: '/metadata/ownerReferences', value: [other] },
    { op: 'add', path: '/metadata/ownerReferences/-', value: ref },
  ]);
});

test('DT-6: an existing reference to that Cluster (any version, any uid) is not updated', () => {
  const older = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'stale' };
  assert.is(ownerReferencePatch(template((t) => (t.metadata.ownerReferences = [older])), ref), undefined);
});

test.run();
