// Finalizers in memory, owner references, pause and externally-managed detection (research 0.2, 0.6, C-3).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { CAPI_PAUSED_ANNOTATION, MANAGED_BY_ANNOTATION } from './cluster-api-names.ts';
import { isExternallyManaged } from './externally-managed.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.ts';
import {
  AlreadyOwnedError,
  apiGroupOf,
  getControllerOf,
  getOwnerByKind,
  hasOwner,
  isControlledBy,
  removeOwnerReference,
  setOwnerReference,
} from './owner-references.ts';
import { hasPausedAnnotation, isPaused } from './paused.ts';

const test = suite('meta helpers');
const F = 'metal3machine.infrastructure.cluster.x-k8s.io';

const m3m = () => newMetal3Machine({ metadata: { name: 'm3m', namespace: 'ns' }, spec: {} });
const machine = (name = 'machine-1', uid = 'uid-1') =>
  newMachine({ metadata: { name, namespace: 'ns', uid }, spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: {} } });

test('finalizers: add and remove in memory report whether anything changed', () => {
  const obj = m3m();
  assert.not.ok(hasFinalizer(obj, F));
  assert.ok(addFinalizer(obj, F));
  assert.not.ok(addFinalizer(obj, F));
  assert.equal(obj.metadata.finalizers, [F]);
  obj.metadata.finalizers!.push('other', F);
  assert.ok(removeFinalizer(obj, F));
  assert.equal(obj.metadata.finalizers, ['other']);
  assert.not.ok(removeFinalizer(obj, F));
  assert.ok(removeFinalizer(obj, 'other'));
  assert.is(obj.metadata.finalizers, undefined, 'an emptied list is dropped so the merge patch deletes it');
});

test('apiGroupOf parses like schema.ParseGroupVersion', () => {
  const table: [string, string | undefined][] = [
    ['infrastructure.cluster.x-k8s.io/v1beta1', 'infrastructure.cluster.x-k8s.io'],
    ['v1', ''],
    ['', ''],
    ['/', ''],
    ['a/b/c', undefined],
  ];
  for (const [apiVersion, group] of table) assert.is(apiGroupOf(apiVersion), group, apiVersion);
});

test('owner references: lookup by group and kind at any version', () => {
  const obj = m3m();
  obj.metadata.ownerReferences = [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'machine-1', uid: 'uid-1', controller: true }];
  assert.is(getOwnerByKind(obj, 'cluster.x-k8s.io', 'Machine')?.name, 'machine-1');
  assert.ok(hasOwner(obj, 'cluster.x-k8s.io', 'Machine'));
  assert.not.ok(hasOwner(obj, 'cluster.x-k8s.io', 'Cluster'));
  assert.not.ok(hasOwner(obj, 'infrastructure.cluster.x-k8s.io', 'Machine'));
  assert.ok(isControlledBy(obj, machine()));
  assert.not.ok(isControlledBy(obj, machine('machine-1', 'uid-other')));
});

test('setOwnerReference is idempotent and updates a reference to the same owner in place', () => {
  const obj = m3m();
  assert.ok(setOwnerReference(obj, machine()));
  assert.not.ok(setOwnerReference(obj, machine()));
  assert.equal(obj.metadata.ownerReferences, [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'machine-1', uid: 'uid-1' }]);
  assert.ok(setOwnerReference(obj, machine(), { controller: true }));
  assert.equal(obj.metadata.ownerReferences, [
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'machine-1', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
  ]);
  assert.not.ok(setOwnerReference(obj, machine(), { controller: true }));
  assert.not.ok(setOwnerReference(obj, machine()), 'a plain set keeps the controller flag');
  // Same owner re-created (new uid): updated in place, not duplicated.
  assert.ok(setOwnerReference(obj, machine('machine-1', 'uid-2')));
  assert.is(obj.metadata.ownerReferences?.length, 1);
  assert.is(getControllerOf(obj)?.uid, 'uid-2');
  const cluster = newCluster({ metadata: { name: 'c', namespace: 'ns', uid: 'cu' } });
  assert.ok(setOwnerReference(obj, cluster));
  assert.is(obj.metadata.ownerReferences?.length, 2);
});

test('setOwnerReference refuses a second controller; owners need a uid', () => {
  const obj = m3m();
  setOwnerReference(obj, machine(), { controller: true });
  assert.throws(() => setOwnerReference(obj, machine('machine-2', 'uid-9'), { controller: true }), (e: unknown) => e instanceof AlreadyOwnedError);
  const unsaved: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };
  assert.throws(() => setOwnerReference(obj, unsaved), /uid/);
  assert.ok(removeOwnerReference(obj, machine()));
  assert.is(obj.metadata.ownerReferences, undefined);
  assert.not.ok(removeOwnerReference(obj, machine()));
});

test('paused: the annotation (any value) or Cluster.spec.paused (research 0.6)', () => {
  const obj = m3m();
  const cluster = newCluster({ metadata: { name: 'c' }, spec: {} });
  assert.not.ok(isPaused(undefined, obj));
  assert.not.ok(isPaused(cluster, obj));
  cluster.spec!.paused = true;
  assert.ok(isPaused(cluster, obj));
  obj.metadata.annotations = { [CAPI_PAUSED_ANNOTATION]: '' };
  assert.ok(hasPausedAnnotation(obj));
  assert.ok(isPaused(undefined, obj));
  assert.is(CAPI_PAUSED_ANNOTATION, 'cluster.x-k8s.io/paused');
});

test('externally managed: the managed-by annotation, any value (C-3)', () => {
  const obj = m3m();
  assert.not.ok(isExternallyManaged(obj));
  obj.metadata.annotations = { [MANAGED_BY_ANNOTATION]: '' };
  assert.ok(isExternallyManaged(obj));
  assert.is(MANAGED_BY_ANNOTATION, 'cluster.x-k8s.io/managed-by');
});

test.run();
