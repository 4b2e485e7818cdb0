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
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { machineContext } from '../context.ts';
import { reconcileAssociation, reconcileStaleRecord, reconcileStrays } from './association.ts';
import { reconcileHostUpdate } from './keep-host.ts';
import { reconcileMetadata } from './metadata.ts';
import { reconcileSpec } from './spec.ts';
import { CLUSTER, hostOn, IMAGE, machineScene, NS, phaseWorld, putHost, requests } from './testing.ts';

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

test('M-18 M-22 M-25 M-26 M-41 (issue 20): a pass from no host to a provisioned claim writes the machine once (record + finalizer), the host once (claim + provisioning), the Secret once', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: ['other.example.com/keep'] });
  await putHost(world, testHost('h1'));
  await world.client.api(SecretResource, NS).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'h1-bmc', namespace: NS } });
  const scope = await world.scope();
  const seen = requests(world.client);
  reconcileSpec(world.ctx, scope);
  for (const phase of [reconcileAssociation, reconcileStaleRecord, reconcileStrays, reconcileMetadata]) assert.is(await phase(world.ctx, scope), undefined);
  await reconcileHostUpdate(world.ctx, scope);

  assert.equal(seen.filter((r) => !r.startsWith('GET')), ['PATCH metal3machines 200', 'PATCH baremetalhosts 200', 'PATCH secrets 200']);
  const m1 = await world.client.api(Metal3MachineResource, NS).get('m1');
  assert.equal(m1.metadata.finalizers, ['other.example.com/keep', METAL3_MACHINE_FINALIZER], "ours beside another controller's, with the record");
  assert.is(m1.metadata.annotations?.[HOST_ANNOTATION], `${NS}/h1`);
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.equal(host.spec?.image, IMAGE, 'M-25: provisioned in the claim');
  assert.equal(host.spec?.userData, { name: 'bootstrap-data', namespace: NS });
  assert.is(host.spec?.online, true);
  assert.is((await world.client.api(SecretResource, NS).get('h1-bmc')).metadata.labels?.[CLUSTER_NAME_LABEL], CLUSTER);
  // The working copy and the base agree with the server: the final patch sends no metadata again.
  assert.equal(scope.base.metadata.finalizers, m1.metadata.finalizers);
  assert.equal(scope.m3m.metadata.finalizers, m1.metadata.finalizers);
  assert.is(scope.base.metadata.resourceVersion, m1.metadata.resourceVersion);
  assert.is(scope.observed.secretLabelled, `${NS}/h1/h1-bmc`, 'the mark waits for the provider ID write');

  // The next pass does not label the Secret again: this process remembers it landed.
  const again = await world.scope();
  const later = requests(world.client);
  reconcileSpec(world.ctx, again);
  for (const phase of [reconcileAssociation, reconcileStaleRecord, reconcileStrays, reconcileMetadata]) await phase(world.ctx, again);
  await reconcileHostUpdate(world.ctx, again);
  assert.equal(later.filter((r) => !r.startsWith('GET')), []);
});

test('issue 20, crash between the record (+ finalizer) and the claim: the next process claims and provisions the recorded host in one locked write', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: [METAL3_MACHINE_FINALIZER], annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  await putHost(world, testHost('h1'));
  await world.client.api(SecretResource, NS).create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'h1-bmc', namespace: NS } });
  const scope = await world.scope();
  const seen = requests(world.client);
  reconcileSpec(world.ctx, scope);
  for (const phase of [reconcileAssociation, reconcileStaleRecord, reconcileStrays, reconcileMetadata]) assert.is(await phase(world.ctx, scope), undefined);
  await reconcileHostUpdate(world.ctx, scope);

  assert.equal(seen.filter((r) => !r.startsWith('GET')), ['PATCH baremetalhosts 200', 'PATCH secrets 200'], 'no machine write: the record stands');
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.equal(host.spec?.image, IMAGE);
});

test('issue 20, crash between the Secret label and its mark: a new process labels again (the same label), and marks with the provider ID', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: [METAL3_MACHINE_FINALIZER], annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  await putHost(world, claimedHost(testHost('h1'), { consumer: machineRef('m1', NS), labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }));
  await world.client.api(SecretResource, NS).create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'h1-bmc', namespace: NS, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } },
  });
  const restarted = machineContext(world.ctx.deps);
  const scope = await world.scope();
  const seen = requests(world.client);
  reconcileSpec(restarted, scope);
  for (const phase of [reconcileAssociation, reconcileStaleRecord, reconcileStrays, reconcileMetadata]) await phase(restarted, scope);
  await reconcileHostUpdate(restarted, scope);
  assert.ok(seen.includes('PATCH secrets 200'), 'labelled again: nothing in memory says it landed');
  assert.is((await world.client.api(SecretResource, NS).get('h1-bmc')).metadata.labels?.[CLUSTER_NAME_LABEL], CLUSTER);
  assert.is(scope.observed.secretLabelled, `${NS}/h1/h1-bmc`);
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
  assert.is((await hostOn(world.client, 'h1')).spec?.image, undefined, 'issue 20: the provisioning merged into the claim never lands on it');
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
