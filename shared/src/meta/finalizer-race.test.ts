// Guarded finalizer writes racing on the fake apiserver (phase level, milliseconds): two writers
// starting from the same copy, a list that shifted under a removal, an object being deleted. The
// JSON Patch `test` guard and its 422 are the fake's, checked against the real apiserver by the
// contract suite (testing/fake-client/contract).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { fakeCluster } from '../testing/fake-client/index.ts';
import { ensureFinalizer, removeFinalizerGuarded } from './ensure-finalizer.ts';

const test = suite('guarded finalizer writes racing on the fake apiserver');
const OURS = 'metal3machine.infrastructure.cluster.x-k8s.io';
const THEIRS = 'other.example.com/cleanup';

/** Counts answers by HTTP code seen by `client` (the guard's refusals are 422s). */
function answers(client: Client): number[] {
  const codes: number[] = [];
  client.transport.hooks = { after: (record) => codes.push(record.code) };
  return codes;
}

async function machineWith(finalizers?: string[]) {
  const cluster = fakeCluster();
  const api = cluster.client.api(Metal3MachineResource, 'ns');
  const made = await api.create(newMetal3Machine({ metadata: { name: 'm', ...(finalizers ? { finalizers } : {}) }, spec: {} }));
  return { ...cluster, api, made };
}

test('M-18: two controllers add their finalizers from the same copy at once: both end up present, once each', async () => {
  const { made, client, newClient } = await machineWith();
  const other = newClient();
  const codes = [answers(client), answers(other)];
  const [ours, theirs] = await Promise.all([
    ensureFinalizer(client.api(Metal3MachineResource, 'ns'), made, OURS),
    ensureFinalizer(other.api(Metal3MachineResource, 'ns'), made, THEIRS),
  ]);
  assert.ok(ours && theirs);
  const stored = await client.api(Metal3MachineResource, 'ns').get('m');
  assert.equal([...(stored.metadata.finalizers ?? [])].sort(), [OURS, THEIRS].sort());
  // Whichever wrote second was refused by its guard (one 422), re-read and wrote again.
  assert.is(codes.flat().filter((code) => code === 422).length, 1, `answers: ${codes.join(' / ')}`);
});

test('X-16: removing ours from a stale copy after the list shifted removes ours only, never theirs', async () => {
  const { api, made, newClient } = await machineWith([THEIRS, OURS]);
  // Another controller removes its own finalizer: ours moves from index 1 to 0.
  await removeFinalizerGuarded(newClient().api(Metal3MachineResource, 'ns'), made, THEIRS);
  const written = await removeFinalizerGuarded(api, made, OURS);
  assert.ok(written);
  assert.equal((await api.get('m')).metadata.finalizers, undefined);
});

test('X-16: removing the last finalizer of a machine being deleted removes the machine', async () => {
  const { api, made } = await machineWith([OURS]);
  await api.delete('m');
  const deleting = await api.get('m');
  assert.ok(deleting.metadata.deletionTimestamp);
  assert.is(await ensureFinalizer(api, deleting, THEIRS), undefined, 'no finalizer is added to an object being deleted');
  await removeFinalizerGuarded(api, made, OURS);
  assert.equal((await api.list()).items, []);
});

test('M-18: adding to a machine that is gone writes nothing and says so', async () => {
  const { api, made } = await machineWith();
  await api.delete('m');
  assert.is(await ensureFinalizer(api, made, OURS), undefined);
  assert.equal((await api.list()).items, []);
});

test.run();
