// The patch helper against an in-memory apiserver stand-in that honours resourceVersion
// preconditions and the status subresource (the real-apiserver suite is test/src/harness/patch.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { ConflictError, NotFoundError } from '@metal3-ts/generated/runtime/errors';
import { type Metal3Machine, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '../conditions/get.ts';
import { ConditionConflictError } from '../conditions/patch.ts';
import { markFalse, markTrue } from '../conditions/set.ts';
import { getV1Beta2Condition } from '../conditions/v1beta2/get.ts';
import { setV1Beta2Condition } from '../conditions/v1beta2/set.ts';
import { applyMergePatch } from './diff.ts';
import { RetryExhaustedError } from '../controller/retry-on-conflict.ts';
import { CONDITION_WRITE_ATTEMPTS, type PatchApi, PatchError, PatchHelper } from './patch-helper.ts';

type Call = { verb: 'get' | 'patch' | 'patchStatus'; body?: Record<string, unknown> };

/** One object, a resourceVersion counter, and `beforeWrite` to let a "concurrent writer" in. */
class FakeApi<T extends KubeObject> implements PatchApi<T> {
  readonly descriptor: ResourceDescriptor<T>;
  readonly namespace: string | undefined;
  object: T | undefined;
  calls: Call[] = [];
  beforeWrite: (() => void) | undefined;
  #rv = 100;

  constructor(descriptor: ResourceDescriptor<T>, object: T) {
    this.descriptor = descriptor;
    this.namespace = object.metadata.namespace;
    this.object = this.#stamp(structuredClone(object));
  }

  /** A write by someone else: bumps the resourceVersion. */
  mutate(fn: (obj: T) => void): void {
    fn(this.object!);
    this.#stamp(this.object!);
  }

  get(): Promise<T> {
    this.calls.push({ verb: 'get' });
    return this.object ? Promise.resolve(structuredClone(this.object)) : Promise.reject(notFound());
  }

  mergePatch(_name: string, patch: unknown): Promise<T> {
    return this.#write('patch', patch as Record<string, unknown>);
  }

  mergePatchStatus(_name: string, patch: unknown): Promise<T> {
    return this.#write('patchStatus', patch as Record<string, unknown>);
  }

  #write(verb: 'patch' | 'patchStatus', body: Record<string, unknown>): Promise<T> {
    this.calls.push({ verb, body });
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    hook?.();
    if (!this.object) return Promise.reject(notFound());
    const { metadata, status, ...rest } = body as { metadata?: { resourceVersion?: string }; status?: unknown };
    if (metadata?.resourceVersion !== undefined && metadata.resourceVersion !== this.object.metadata.resourceVersion) {
      return Promise.reject(new ConflictError(409, { kind: 'Status', reason: 'Conflict', code: 409 }, { verb: 'PATCH', path: '/x' }));
    }
    const { resourceVersion: _rv, ...meta } = metadata ?? {};
    const subresource = this.descriptor.statusSubresource;
    // The apiserver ignores status on the main resource and everything but status on /status.
    const effective = verb === 'patchStatus' ? { status } : subresource ? { ...rest, metadata: meta } : { ...rest, metadata: meta, status };
    this.object = this.#stamp(applyMergePatch(this.object, effective));
    return Promise.resolve(structuredClone(this.object));
  }

  #stamp(obj: T): T {
    obj.metadata.resourceVersion = String(++this.#rv);
    return obj;
  }
}

const notFound = () => new NotFoundError(404, { kind: 'Status', reason: 'NotFound', code: 404 }, { verb: 'GET', path: '/x' });

const machine = (): Metal3Machine =>
  newMetal3Machine({
    metadata: { name: 'm', namespace: 'ns', uid: 'u', generation: 1, labels: { keep: 'yes', drop: 'me' } },
    spec: { failureDomain: 'rack-1', providerID: 'metal3://a' },
    status: { ready: false },
  });

function setup(descriptor: ResourceDescriptor<Metal3Machine> = Metal3MachineResource) {
  const api = new FakeApi(descriptor, machine());
  const read = () => structuredClone(api.object!);
  return { api, read };
}

async function rejects(promise: Promise<unknown>): Promise<PatchError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, PatchError);
    return error as PatchError;
  }
  assert.unreachable('expected a PatchError');
  throw new Error('unreachable');
}

const test = suite('PatchHelper');

test('a no-op patch sends no request and returns undefined', async () => {
  const { api, read } = setup();
  const obj = read();
  const helper = new PatchHelper(obj, api);
  assert.is(await helper.patch(obj), undefined);
  assert.equal(api.calls, []);
});

test('metadata and spec go as one merge patch without status; status goes through /status only', async () => {
  const { api, read } = setup();
  const obj = read();
  const written: Metal3Machine[] = [];
  const helper = new PatchHelper(obj, api, { onWrite: (w) => written.push(w) });
  delete obj.metadata.labels!['drop'];
  delete obj.spec!.failureDomain;
  obj.metadata.finalizers = ['metal3machine.infrastructure.cluster.x-k8s.io'];
  obj.status!.ready = true;
  const last = await helper.patch(obj);
  assert.equal(api.calls, [
    {
      verb: 'patch',
      body: { metadata: { labels: { drop: null }, finalizers: ['metal3machine.infrastructure.cluster.x-k8s.io'] }, spec: { failureDomain: null } },
    },
    { verb: 'patchStatus', body: { status: { ready: true } } },
  ]);
  assert.is(written.length, 2, 'onWrite sees every server response');
  assert.equal(last, api.object);
  assert.equal(api.object?.metadata.labels, { keep: 'yes' });
  assert.is(api.object?.spec?.failureDomain, undefined);
  assert.is(api.object?.status?.ready, true);
  assert.is(await helper.patch(obj), undefined, 'a second patch without new changes sends nothing');
  assert.is(api.calls.length, 2);
});

test('two writers setting different conditions (both lists) both survive', async () => {
  const { api, read } = setup();
  const a = read();
  const b = read();
  const helperA = new PatchHelper(a, api);
  const helperB = new PatchHelper(b, api);
  markFalse(a, 'AssociateBMH', 'WaitingForClusterInfrastructure', 'Info');
  setV1Beta2Condition(a, { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForClusterInfrastructureReady' });
  markTrue(b, 'Metal3DataReady');
  setV1Beta2Condition(b, { type: 'Metal3DataReady', status: 'True', reason: 'Metal3DataSecretsReady' });
  await helperA.patch(a);
  await helperB.patch(b);
  const server = api.object!;
  assert.equal(server.status?.conditions?.map((c) => c.type), ['AssociateBMH', 'Metal3DataReady']);
  assert.equal(server.status?.v1beta2?.conditions?.map((c) => c.type), ['AssociateBareMetalHost', 'Metal3DataReady']);
  // B's first attempt was based on a stale resourceVersion: 409, re-read, re-merge, success.
  assert.equal(api.calls.map((c) => c.verb), ['patchStatus', 'patchStatus', 'get', 'patchStatus']);
  assert.ok(api.calls.every((c) => c.verb === 'get' || (c.body?.['metadata'] as { resourceVersion?: string }).resourceVersion));
});

test('a condition both writers changed: PatchError with ConditionConflictError, unless owned (ours win)', async () => {
  const { api, read } = setup();
  const ours = read();
  const helper = new PatchHelper(ours, api);
  api.mutate((o) => markFalse(o, 'AssociateBMH', 'AssociateBMHFailed', 'Error'));
  markTrue(ours, 'AssociateBMH');
  const error = await rejects(helper.patch(ours));
  assert.instance(error.errors[0], ConditionConflictError);
  assert.match(error.message, /failed to patch Metal3Machine ns\/m/);
  assert.is(getCondition(api.object!, 'AssociateBMH')?.reason, 'AssociateBMHFailed');
  await helper.patch(ours, { ownedConditions: ['AssociateBMH'] });
  assert.is(getCondition(api.object!, 'AssociateBMH')?.status, 'True');
});

test('M-42: a changed Ready is written with every owned condition as desired, though the server lost one since the snapshot', async () => {
  const { api, read } = setup();
  api.mutate((o) => {
    markFalse(o, 'Ready', 'Waiting', 'Info');
    markTrue(o, 'AssociateBMH');
  });
  const ours = read();
  const helper = new PatchHelper(ours, api);
  // A whole-list write the snapshot did not see (an old replica, a hand edit) drops AssociateBMH.
  api.mutate((o) => (o.status!.conditions = o.status!.conditions!.filter((x) => x.type !== 'AssociateBMH')));
  markTrue(ours, 'Ready');
  await helper.patch(ours, { ownedConditions: ['Ready', 'AssociateBMH'] });
  assert.is(getCondition(api.object!, 'Ready')?.status, 'True');
  assert.is(getCondition(api.object!, 'AssociateBMH')?.status, 'True', 'the input of the summary is back beside it');
});

test('the condition write retries on 409 when a concurrent writer bumps the resourceVersion, and both changes survive', async () => {
  const { api, read } = setup();
  const obj = read();
  const helper = new PatchHelper(obj, api);
  setV1Beta2Condition(obj, { type: 'Paused', status: 'False', reason: 'NotPaused' });
  obj.status!.ready = true;
  api.beforeWrite = () => api.mutate((o) => setV1Beta2Condition(o, { type: 'Theirs', status: 'True', reason: 'Done' }));
  await helper.patch(obj);
  assert.equal(api.calls.map((c) => c.verb), ['patchStatus', 'get', 'patchStatus']);
  assert.ok(getV1Beta2Condition(api.object!, 'Theirs'));
  assert.ok(getV1Beta2Condition(api.object!, 'Paused'));
  assert.is(api.object?.status?.ready, true);
});

test(`the condition write gives up after ${CONDITION_WRITE_ATTEMPTS} conflicting attempts`, async () => {
  const { api, read } = setup();
  const obj = read();
  const helper = new PatchHelper(obj, api);
  markTrue(obj, 'Metal3DataReady');
  const original = api.mergePatchStatus.bind(api);
  api.mergePatchStatus = (name, patch) => {
    api.mutate((o) => (o.metadata.annotations = { n: String(api.calls.length) }));
    return original(name, patch);
  };
  const error = await rejects(helper.patch(obj));
  assert.instance(error.errors[0], RetryExhaustedError);
  assert.instance((error.errors[0] as Error).cause, ConflictError, 'the last conflict is its cause');
  assert.is(api.calls.filter((c) => c.verb === 'patchStatus').length, CONDITION_WRITE_ATTEMPTS);
});

test('optimisticLock: a spec change based on a stale snapshot fails with ConflictError and writes nothing', async () => {
  const { api, read } = setup();
  const obj = read();
  const helper = new PatchHelper(obj, api);
  api.mutate((o) => (o.spec!.providerID = 'metal3://theirs'));
  obj.spec!.failureDomain = 'rack-2';
  obj.status!.ready = true;
  const error = await rejects(helper.patch(obj, { optimisticLock: true }));
  assert.instance(error.errors[0], ConflictError);
  assert.equal(api.calls.map((c) => c.verb), ['patch'], 'no status write after the main write was refused');
  assert.is(api.object?.spec?.failureDomain, 'rack-1');
  // Without the lock the same change merges over the concurrent one.
  await helper.patch(obj);
  assert.equal([api.object?.spec?.failureDomain, api.object?.spec?.providerID], ['rack-2', 'metal3://theirs']);
});

test('kinds without a status subresource get status (and merged conditions) in the main patch', async () => {
  const { api, read } = setup({ ...Metal3MachineResource, statusSubresource: false });
  const obj = read();
  const helper = new PatchHelper(obj, api);
  obj.status!.phase = 'Provisioned';
  markTrue(obj, 'Ready');
  await helper.patch(obj);
  assert.equal(api.calls.map((c) => c.verb), ['patch']);
  assert.is(api.object?.status?.phase, 'Provisioned');
  assert.is(getCondition(api.object!, 'Ready')?.status, 'True');
});

test('a NotFound status write after removing the last finalizer of a deleting object is not an error', async () => {
  const { api, read } = setup();
  api.mutate((o) => {
    o.metadata.finalizers = ['f'];
    o.metadata.deletionTimestamp = '2020-01-01T00:00:00Z';
  });
  const obj = read();
  const helper = new PatchHelper(obj, api);
  delete obj.metadata.finalizers;
  obj.status!.ready = true;
  const original = api.mergePatch.bind(api);
  api.mergePatch = async (name, patch) => {
    const written = await original(name, patch);
    api.object = undefined; // the apiserver deletes the object with its last finalizer
    return written;
  };
  await helper.patch(obj);
  assert.equal(api.calls.map((c) => c.verb), ['patch', 'patchStatus']);
});

test('the Api must be bound to the object namespace', () => {
  const { api, read } = setup();
  const other = { ...api, namespace: undefined } as unknown as PatchApi<Metal3Machine>;
  assert.throws(() => new PatchHelper(read(), other), /bound to the object's namespace/);
});

test.run();
