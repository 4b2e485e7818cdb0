// DT-6: the template's ownerReference to its Cluster, added once with a guarded JSON patch.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonPatchOperation } from '@metal3-ts/generated';
import { apiError } from '@metal3-ts/generated/runtime/errors';
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { RetryExhaustedError } from '@metal3-ts/shared/controller/retry-on-conflict';
import { cluster, template } from '../testing.ts';
import { clusterOwnerReference, ensureClusterOwnerReference, ownerReferencePatch } from './owner.ts';

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

/** A template endpoint whose JSON patches fail with `refusals` (status codes) first; every write lands a foreign reference first. */
function fakeApi(refusals: number[]) {
  let stored = template();
  const writes: JsonPatchOperation[][] = [];
  const context = { verb: 'PATCH', path: '/x' };
  return {
    writes,
    api: {
      get: () => Promise.resolve(structuredClone(stored)),
      jsonPatch: (_name: string, ops: JsonPatchOperation[]): Promise<Metal3DataTemplate> => {
        writes.push(ops);
        const code = refusals.shift();
        if (code !== undefined) {
          // Another writer got there first: the list the guard pinned has changed.
          stored = template((t) => (t.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: `other-${writes.length}`, uid: 'o' }]));
          return Promise.reject(apiError(code, undefined, context));
        }
        stored = template((t) => (t.metadata.ownerReferences = [...(stored.metadata.ownerReferences ?? []), ref]));
        return Promise.resolve(structuredClone(stored));
      },
    },
  };
}

test('DT-6: a refused guard (422) or a stale write (409) re-reads and appends to the fresh list', async () => {
  const { api, writes } = fakeApi([422, 409]);
  const written = await ensureClusterOwnerReference(api, template(), cluster());
  assert.equal(written?.metadata.ownerReferences?.map((r) => r.name), ['other-2', 'c1']);
  assert.is(writes.length, 3);
  assert.equal(writes[2]![0], { op: 'test', path: '/metadata/ownerReferences', value: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other-2', uid: 'o' }] });
});

test('DT-6: still refused after the given attempts: RetryExhaustedError naming the template, the last refusal its cause', async () => {
  const { api, writes } = fakeApi([409, 409, 409]);
  try {
    await ensureClusterOwnerReference(api, template(), cluster(), 3);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, RetryExhaustedError);
    assert.match((error as Error).message, /Metal3DataTemplate ns\/.*: adding its Cluster owner reference: still refused after 3 attempts/);
  }
  assert.is(writes.length, 3);
});

test.run();
