// The patch helper and guarded finalizer writes against the real kube-apiserver, with every request
// recorded from the transport hooks (method, path, body, HTTP code). A second client plays the
// "other controller"; its requests are not recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Api, Client, ConflictError, type HttpRequest, Transport } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { ConditionConflictError } from '@metal3-ts/shared/conditions/patch';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { PatchError, PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('patch helper on the real apiserver');
const env = withSharedEnv(test);

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown> | undefined;
  code?: number;
}

let ours: Client;
let other: Client;
let sent: Sent[] = [];
/** Runs once before the next recorded request goes out (lets another writer in at that moment). */
let interject: ((request: HttpRequest) => Promise<void>) | undefined;

test.before(() => {
  ours = new Client(Transport.fromConnection(env().admin));
  other = new Client(Transport.fromConnection(env().admin));
  ours.transport.hooks = {
    before: async (request) => {
      sent.push({ method: request.method, path: request.path.split('?')[0]!, body: request.body as Record<string, unknown> | undefined });
      const hook = interject;
      interject = undefined;
      await hook?.(request);
    },
    after: (record) => {
      const pending = sent.findLast((s) => s.code === undefined && s.method === record.method);
      if (pending) pending.code = record.code;
    },
  };
});

test.after(() => {
  ours.transport.close();
  other.transport.close();
});

/** A fresh namespace with one Metal3Machine; returns both clients' Apis and a fresh read of it. */
async function fixture(): Promise<{ api: Api<Metal3Machine>; theirs: Api<Metal3Machine>; obj: Metal3Machine; path: string }> {
  const ns = await freshNamespace(env().admin.client, 'patch');
  const theirs = other.api(Metal3MachineResource, ns);
  await theirs.create(
    newMetal3Machine({
      metadata: { name: 'm', labels: { keep: 'yes', drop: 'me' } },
      spec: { failureDomain: 'rack-1', image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' } },
    }),
  );
  const api = ours.api(Metal3MachineResource, ns);
  const obj = await api.get('m');
  sent = [];
  return { api, theirs, obj, path: `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${ns}/metal3machines/m` };
}

const summary = () => sent.map((s) => `${s.method} ${s.path.replace(/^.*\/metal3machines\/m/, '')} ${s.code ?? '-'}`);

async function patchError(promise: Promise<unknown>): Promise<PatchError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, PatchError);
    return error as PatchError;
  }
  assert.unreachable('expected a PatchError');
  throw new Error('unreachable');
}

test('a no-op patch sends zero requests', async () => {
  const { api, obj } = await fixture();
  const helper = new PatchHelper(obj, api);
  assert.is(await helper.patch(obj), undefined);
  assert.is(sent.length, 0);
});

test('status is written through /status only: spec+status change = main patch without status + /status patch', async () => {
  const { api, obj, path } = await fixture();
  const written: Metal3Machine[] = [];
  const helper = new PatchHelper(obj, api, { onWrite: (w) => written.push(w) });
  obj.spec!.providerID = 'metal3://ns/host-0/m';
  obj.metadata.annotations = { 'metal3.io/BareMetalHost': 'ns/host-0' };
  obj.status = { ...obj.status, ready: true, phase: 'Provisioned' };
  markTrue(obj, 'AssociateBMH');
  const last = await helper.patch(obj);
  assert.equal(summary(), ['PATCH  200', 'PATCH /status 200']);
  assert.is(sent[0]!.path, path);
  assert.not.ok('status' in sent[0]!.body!, 'the main-resource patch carries no status');
  assert.equal(sent[0]!.body, { metadata: { annotations: { 'metal3.io/BareMetalHost': 'ns/host-0' } }, spec: { providerID: 'metal3://ns/host-0/m' } });
  assert.equal(Object.keys(sent[1]!.body!).sort(), ['metadata', 'status']);
  assert.equal(Object.keys(sent[1]!.body!['metadata'] as object), ['resourceVersion']);
  const server = await other.api(Metal3MachineResource, obj.metadata.namespace).get('m');
  assert.is(server.spec?.providerID, 'metal3://ns/host-0/m');
  assert.is(server.status?.ready, true);
  assert.is(server.status?.phase, 'Provisioned');
  assert.is(getCondition(server, 'AssociateBMH')?.status, 'True');
  assert.is(written.length, 2, 'onWrite saw both server responses');
  assert.is(last?.metadata.resourceVersion, server.metadata.resourceVersion);
});

test('metadata and spec deletions are sent as null and remove the keys', async () => {
  const { api, obj } = await fixture();
  const helper = new PatchHelper(obj, api);
  delete obj.metadata.labels!['drop'];
  delete obj.spec!.failureDomain;
  await helper.patch(obj);
  assert.equal(sent.map((s) => s.body), [{ metadata: { labels: { drop: null } }, spec: { failureDomain: null } }]);
  const server = await other.api(Metal3MachineResource, obj.metadata.namespace).get('m');
  assert.equal(server.metadata.labels, { keep: 'yes' });
  assert.not.ok('failureDomain' in server.spec!);
});

test('two writers of different conditions both survive, in both condition lists', async () => {
  const { api, obj } = await fixture();
  const a = structuredClone(obj);
  const b = structuredClone(obj);
  const writerA = new PatchHelper(a, api);
  const writerB = new PatchHelper(b, api);
  markFalse(a, 'AssociateBMH', 'WaitingForClusterInfrastructure', 'Info', 'cluster infrastructure not ready');
  setV1Beta2Condition(a, { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForClusterInfrastructureReady' });
  markTrue(b, 'Metal3DataReady');
  setV1Beta2Condition(b, { type: 'Metal3DataReady', status: 'True', reason: 'Metal3DataSecretsReady' });
  await writerA.patch(a);
  await writerB.patch(b);
  // B's snapshot was stale after A's write: its guarded write got 409, re-read, re-merged.
  assert.equal(summary(), ['PATCH /status 200', 'PATCH /status 409', 'GET  200', 'PATCH /status 200']);
  const server = await other.api(Metal3MachineResource, obj.metadata.namespace).get('m');
  assert.equal(server.status?.conditions?.map((c) => `${c.type}=${c.status}`), ['AssociateBMH=False', 'Metal3DataReady=True']);
  assert.equal(server.status?.v1beta2?.conditions?.map((c) => `${c.type}=${c.status}`), ['AssociateBareMetalHost=False', 'Metal3DataReady=True']);
});

test('optimistic lock on the condition write: a concurrent writer bumps the resourceVersion, the helper retries, both changes survive', async () => {
  const { api, theirs, obj } = await fixture();
  const helper = new PatchHelper(obj, api);
  setV1Beta2Condition(obj, { type: 'Paused', status: 'False', reason: 'NotPaused' });
  obj.status = { ...obj.status, lastUpdated: '2026-01-01T00:00:00Z' };
  interject = async () => {
    const current = await theirs.get('m');
    setV1Beta2Condition(current, { type: 'Ready', status: 'False', reason: 'NotReady' });
    markFalse(current, 'KubernetesNodeReady', 'Deleting', 'Info');
    await theirs.mergePatchStatus('m', {
      metadata: { resourceVersion: current.metadata.resourceVersion },
      status: { conditions: current.status!.conditions!, v1beta2: current.status!.v1beta2! },
    });
  };
  await helper.patch(obj);
  assert.equal(summary(), ['PATCH /status 409', 'GET  200', 'PATCH /status 200']);
  const server = await theirs.get('m');
  assert.is(getV1Beta2Condition(server, 'Paused')?.reason, 'NotPaused');
  assert.is(getV1Beta2Condition(server, 'Ready')?.reason, 'NotReady');
  assert.is(getCondition(server, 'KubernetesNodeReady')?.reason, 'Deleting');
  assert.is(server.status?.lastUpdated, '2026-01-01T00:00:00Z');
});

test('optimisticLock option: a spec change based on a stale snapshot is refused with ConflictError, nothing written', async () => {
  const { api, theirs, obj } = await fixture();
  const helper = new PatchHelper(obj, api);
  await theirs.mergePatch('m', { spec: { providerID: 'metal3://theirs' } });
  obj.spec!.failureDomain = 'rack-2';
  obj.status = { ready: true };
  const error = await patchError(helper.patch(obj, { optimisticLock: true }));
  assert.instance(error.errors[0], ConflictError);
  assert.equal(summary(), ['PATCH  409']);
  const server = await theirs.get('m');
  assert.is(server.spec?.failureDomain, 'rack-1');
  assert.is(server.status?.ready, undefined);
});

test('a condition both writers changed conflicts; listed in ownedConditions, ours wins and theirs survive', async () => {
  const { api, theirs } = await fixture();
  const current = await theirs.get('m');
  markFalse(current, 'AssociateBMH', 'WaitingForBootstrapReady', 'Info');
  markTrue(current, 'Metal3DataReady');
  const seeded = await theirs.mergePatchStatus('m', { status: { conditions: current.status!.conditions! } });
  const mine = structuredClone(seeded);
  const helper = new PatchHelper(mine, api);
  markTrue(mine, 'AssociateBMH');
  // The other controller moves AssociateBMH elsewhere in the meantime.
  const moved = structuredClone(seeded);
  markFalse(moved, 'AssociateBMH', 'AssociateBMHFailed', 'Error', 'host gone');
  await theirs.mergePatchStatus('m', { status: { conditions: moved.status!.conditions! } });

  const error = await patchError(helper.patch(mine));
  assert.instance(error.errors[0], ConditionConflictError);
  assert.equal((error.errors[0] as ConditionConflictError).types, ['AssociateBMH']);
  assert.is(getCondition(await theirs.get('m'), 'AssociateBMH')?.reason, 'AssociateBMHFailed', 'a conflict writes nothing');

  sent = [];
  await helper.patch(mine, { ownedConditions: ['AssociateBMH'] });
  const server = await theirs.get('m');
  assert.is(getCondition(server, 'AssociateBMH')?.status, 'True');
  assert.is(getCondition(server, 'Metal3DataReady')?.status, 'True');
  assert.equal(summary(), ['PATCH /status 409', 'GET  200', 'PATCH /status 200'], 'only /status writes, re-merged after the stale first try');
});

test('ensureFinalizer / removeFinalizerGuarded: the apiserver refuses a stale test op, we re-read and lose nothing', async () => {
  const { api, theirs, obj } = await fixture();
  const F = 'metal3machine.infrastructure.cluster.x-k8s.io';
  // The list is missing: `test` against null passes on the real apiserver.
  const added = await ensureFinalizer(api, obj, F);
  assert.equal(added?.metadata.finalizers, [F]);
  assert.is(await ensureFinalizer(api, added!, F), undefined);

  // Another controller adds its finalizer between our read and our write.
  sent = [];
  const stale = await api.get('m');
  await theirs.jsonPatch('m', [{ op: 'add', path: '/metadata/finalizers/0', value: 'theirs.example.com' }]);
  const removed = await removeFinalizerGuarded(api, stale, F);
  assert.equal(summary(), ['GET  200', 'PATCH  422', 'GET  200', 'PATCH  200']);
  assert.equal(removed?.metadata.finalizers, ['theirs.example.com']);
  assert.equal((await theirs.get('m')).metadata.finalizers, ['theirs.example.com']);
});

test.run();
