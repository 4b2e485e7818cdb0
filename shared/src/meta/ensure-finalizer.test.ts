// Guarded finalizer writes: the JSON Patch carries a `test` op, a refused test makes us re-read.
// The real apiserver's answer to a failed test is covered in test/src/harness/patch.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonPatchOperation } from '@metal3-ts/generated';
import { InvalidError, NotFoundError } from '@metal3-ts/generated/runtime/errors';
import { type Metal3Machine, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { RetryExhaustedError } from '../controller/retry-on-conflict.ts';
import { ensureFinalizer, type FinalizerApi, removeFinalizerGuarded } from './ensure-finalizer.ts';

const test = suite('guarded finalizer writes');
const F = 'metal3machine.infrastructure.cluster.x-k8s.io';

/** Applies the few JSON Patch ops the helpers send; a failed `test` is a 422 as on the apiserver. */
class FakeApi implements FinalizerApi<Metal3Machine> {
  object: Metal3Machine | undefined = newMetal3Machine({ metadata: { name: 'm', namespace: 'ns' }, spec: {} });
  patches: JsonPatchOperation[][] = [];
  beforeWrite: (() => void) | undefined;

  get(): Promise<Metal3Machine> {
    return this.object ? Promise.resolve(structuredClone(this.object)) : Promise.reject(new NotFoundError(404, undefined, { verb: 'GET', path: '/' }));
  }

  jsonPatch(_name: string, ops: readonly JsonPatchOperation[]): Promise<Metal3Machine> {
    this.patches.push([...ops]);
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    hook?.();
    if (!this.object) return Promise.reject(new NotFoundError(404, undefined, { verb: 'PATCH', path: '/' }));
    const next = structuredClone(this.object);
    for (const op of ops) {
      const list = next.metadata.finalizers;
      const index = op.path.match(/\/(\d+)$/)?.[1];
      const at = index === undefined ? undefined : list?.[Number(index)];
      const whole = op.path === '/metadata/finalizers';
      if (op.op === 'test') {
        const actual = whole ? (list ?? null) : (at ?? null);
        if (JSON.stringify(actual) !== JSON.stringify(op.value)) return Promise.reject(new InvalidError(422, undefined, { verb: 'PATCH', path: '/' }));
      } else if (op.op === 'add') {
        if (whole) next.metadata.finalizers = op.value as string[];
        else list!.push(op.value as string);
      } else if (op.op === 'remove') {
        list!.splice(Number(index), 1);
      }
    }
    this.object = next;
    return Promise.resolve(structuredClone(next));
  }
}

test('ensureFinalizer adds with a test on the (missing) list and does not touch the input object', async () => {
  const api = new FakeApi();
  const obj = await api.get();
  const written = await ensureFinalizer(api, obj, F);
  assert.equal(written?.metadata.finalizers, [F]);
  assert.equal(api.patches[0], [
    { op: 'test', path: '/metadata/finalizers', value: null },
    { op: 'add', path: '/metadata/finalizers', value: [F] },
  ]);
  assert.is(obj.metadata.finalizers, undefined);
  assert.is(await ensureFinalizer(api, written!, F), undefined, 'already present: no request');
  assert.is(api.patches.length, 1);
});

test('a concurrent finalizer change refuses the test; we re-read and add without dropping theirs', async () => {
  const api = new FakeApi();
  const stale = await api.get();
  api.beforeWrite = () => (api.object!.metadata.finalizers = ['theirs']);
  const written = await ensureFinalizer(api, stale, F);
  assert.equal(written?.metadata.finalizers, ['theirs', F]);
  assert.is(api.patches.length, 2);
  assert.equal(api.patches[1]?.[0], { op: 'test', path: '/metadata/finalizers', value: ['theirs'] });
});

test('if another writer added the same finalizer meanwhile, it is not duplicated', async () => {
  const api = new FakeApi();
  const stale = await api.get();
  api.beforeWrite = () => (api.object!.metadata.finalizers = [F]);
  assert.is(await ensureFinalizer(api, stale, F), undefined);
  assert.equal(api.object?.metadata.finalizers, [F]);
});

test('no finalizer is added to an object being deleted', async () => {
  const api = new FakeApi();
  const obj = await api.get();
  obj.metadata.deletionTimestamp = '2020-01-01T00:00:00Z';
  assert.is(await ensureFinalizer(api, obj, F), undefined);
  assert.is(api.patches.length, 0);
});

test('removeFinalizerGuarded tests the entry at its index; a shifted list is re-read, not mis-removed', async () => {
  const api = new FakeApi();
  api.object!.metadata.finalizers = ['a', F, 'b'];
  const stale = await api.get();
  api.beforeWrite = () => (api.object!.metadata.finalizers = [F, 'b']);
  const written = await removeFinalizerGuarded(api, stale, F);
  assert.equal(written?.metadata.finalizers, ['b']);
  assert.equal(api.patches.map((p) => p[0]), [
    { op: 'test', path: '/metadata/finalizers/1', value: F },
    { op: 'test', path: '/metadata/finalizers/0', value: F },
  ]);
  assert.is(await removeFinalizerGuarded(api, written!, F), undefined);
});

test('removing from an object that is already gone is not an error', async () => {
  const api = new FakeApi();
  api.object!.metadata.finalizers = [F];
  const obj = await api.get();
  api.object = undefined;
  assert.is(await removeFinalizerGuarded(api, obj, F), undefined);
});

test('persistent refusals surface after the configured attempts', async () => {
  const api = new FakeApi();
  const obj = await api.get();
  const original = api.jsonPatch.bind(api);
  let n = 0;
  api.jsonPatch = (name, ops) => {
    api.object!.metadata.finalizers = [`other-${n++}`];
    return original(name, ops);
  };
  try {
    await ensureFinalizer(api, obj, F, { attempts: 3 });
    assert.unreachable('expected a RetryExhaustedError');
  } catch (error) {
    assert.instance(error, RetryExhaustedError);
    assert.instance((error as Error).cause, InvalidError, 'the last refusal is its cause');
    assert.match((error as Error).message, /writing its finalizers: still refused after 3 attempts/);
  }
  assert.is(api.patches.length, 3);
});

test.run();
