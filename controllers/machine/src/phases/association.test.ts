// Phases `associate` and `forget` on the fake apiserver: a host claimed and recorded, a claim lost to
// a machine the cache has not seen yet (the record removed, the next pass choosing again on a fresh
// read), a record of a host another machine holds forgotten. Each test checks the server's objects
// and what the phase recorded on the scope.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import { reconcileAssociation, reconcileStaleRecord } from './association.ts';
import { reconcileSpec } from './spec.ts';
import { CLUSTER, hostOn, machineScene, NS, phaseWorld, putHost } from './testing.ts';

const test = suite('machine phases: associate and forget (fake apiserver)');

const recordOn = async (world: ReturnType<typeof phaseWorld>, name = 'm1') =>
  (await world.client.api(Metal3MachineResource, NS).get(name)).metadata.annotations?.[HOST_ANNOTATION];

test('M-21 M-22 M-26 M-27 M-41: a machine without a host records, claims and labels the one available host', async () => {
  const world = phaseWorld();
  await machineScene(world);
  await putHost(world, testHost('h1'));
  const scope = await world.scope();
  reconcileSpec(world.ctx, scope);
  assert.is(await reconcileAssociation(world.ctx, scope), undefined, 'goes on to the next phase');
  assert.is(await reconcileStaleRecord(world.ctx, scope), undefined);

  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], CLUSTER);
  assert.equal(host.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['Metal3Machine', 'm1', true]]);
  assert.is(await recordOn(world), `${NS}/h1`, 'the record was written before the claim');
  assert.is(scope.host?.metadata.name, 'h1');
  assert.is(scope.m3m.metadata.annotations?.[HOST_ANNOTATION], `${NS}/h1`);
  assert.equal(scope.observed.association, { kind: 'Associated' });
  assert.is(scope.observed.references?.userData?.name, 'bootstrap-data', 'M-20: the bootstrap Secret is the user data');
  assert.equal(world.events.map((e) => e.reason), ['HostAssociated']);
});

test('M-22 M-24: a claim lost to a machine the cache has not seen removes the record; the next pass chooses again on a fresh read', async () => {
  const world = phaseWorld();
  await machineScene(world);
  await putHost(world, testHost('h1'));
  await putHost(world, testHost('h2'));
  const scope = await world.scope();
  reconcileSpec(world.ctx, scope);
  // Another machine claims h1 on the server; our informer still shows it free.
  const other = world.newClient();
  const h1 = await other.api(BareMetalHostResource, NS).get('h1');
  await other.api(BareMetalHostResource, NS).replace(claimedHost(h1, { consumer: machineRef('m2', NS, 'uid-m2') }));

  assert.equal(await reconcileAssociation(world.ctx, scope), {}, 'waits for the event of its own record removal');
  assert.equal(scope.observed.association, { kind: 'Host', message: `BareMetalHost ${NS}/h1 was taken by another machine meanwhile; choosing again` });
  assert.is(await recordOn(world), undefined, 'the record of the lost host is removed');
  assert.is((await hostOn(world.client, 'h1')).spec?.consumerRef?.name, 'm2', 'the winner keeps its host');
  assert.is((await hostOn(world.client, 'h2')).spec?.consumerRef, undefined);

  const next = await world.scope();
  reconcileSpec(world.ctx, next);
  assert.is(await reconcileAssociation(world.ctx, next), undefined);
  assert.is(next.host?.metadata.name, 'h2');
  assert.is((await hostOn(world.client, 'h2')).spec?.consumerRef?.name, 'm1');
  assert.is(await recordOn(world), `${NS}/h2`);
});

test('M-40: a record of a host another machine holds is forgotten, and our stale owner reference comes off that host', async () => {
  const world = phaseWorld();
  const m1 = await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  const held = claimedHost(testHost('h1'), { consumer: machineRef('m2', NS, 'uid-m2') });
  held.metadata.ownerReferences = [...(held.metadata.ownerReferences ?? []), {
    apiVersion: m1.apiVersion,
    kind: 'Metal3Machine',
    name: 'm1',
    uid: m1.metadata.uid ?? '',
  }];
  await putHost(world, held);
  const scope = await world.scope();
  reconcileSpec(world.ctx, scope);
  assert.is(await reconcileAssociation(world.ctx, scope), undefined, 'a recorded, claimed host is not chosen again');
  assert.equal(await reconcileStaleRecord(world.ctx, scope), {});

  assert.equal(scope.observed.association, { kind: 'Host', message: `BareMetalHost ${NS}/h1 is consumed by Metal3Machine ${NS}/m2; choosing again` });
  assert.is(await recordOn(world), undefined);
  assert.is(scope.m3m.metadata.annotations?.[HOST_ANNOTATION], undefined);
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm2', 'the other machine keeps its host');
  assert.equal(host.metadata.ownerReferences?.map((r) => r.name), ['m2']);
});

test.run();
