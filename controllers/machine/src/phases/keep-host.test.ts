// Phases `host` and `settled` (keep-host.ts) on the fake apiserver: the provisioning fields are
// written once and the next pass sends no host write; a settled machine (M-19) keeps its host
// untouched and releases a stray; a claim locked on a stale copy (BMO wrote the host meanwhile) is
// made again on a fresh read; a fresh read showing another machine's claim forgets the record.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import type { MachineScope } from '../scope.ts';
import { reconcileAssociation, reconcileStaleRecord } from './association.ts';
import { reconcileHostUpdate, reconcileSettled } from './keep-host.ts';
import { reconcileSpec } from './spec.ts';
import { CLUSTER, hostOn, IMAGE, machineScene, NS, type PhaseWorld, phaseWorld, putHost, requests } from './testing.ts';

const test = suite('machine phases: host update and settled (fake apiserver)');

/** The phases before `host`, as the normal flow runs them. */
async function upToHost(world: PhaseWorld, scope: MachineScope): Promise<void> {
  reconcileSpec(world.ctx, scope);
  assert.is(await reconcileAssociation(world.ctx, scope), undefined);
  assert.is(await reconcileStaleRecord(world.ctx, scope), undefined);
}

const hostWrites = (seen: string[]) => seen.filter((r) => r.startsWith('PATCH baremetalhosts'));

test('M-25 M-30: the deployment (image, user data) and power are written to the held host once; the next pass sends no host write', async () => {
  const world = phaseWorld();
  const m1 = await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  await putHost(world, claimedHost(testHost('h1'), { consumer: machineRef('m1', NS, m1.metadata.uid), labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }));
  const seen = requests(world.client);
  const scope = await world.scope();
  await upToHost(world, scope);
  assert.equal(await reconcileHostUpdate(world.ctx, scope), world.ctx.safetyNet, 'not provisioned yet: looked at again');

  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.image?.url, IMAGE.url);
  assert.is(host.spec?.userData?.name, 'bootstrap-data');
  assert.is(host.spec?.online, true);
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.equal(hostWrites(seen), ['PATCH baremetalhosts 200']);
  assert.is(scope.host?.metadata.resourceVersion, host.metadata.resourceVersion, 'the scope moves on to the written host');
  assert.equal(scope.observed.addresses, []);
  assert.is(scope.observed.data, undefined, 'no data template: nothing to wait for');

  seen.length = 0;
  const again = await world.scope();
  await upToHost(world, again);
  await reconcileHostUpdate(world.ctx, again);
  assert.equal(hostWrites(seen), [], 'nothing changed: nothing sent');
  assert.is((await hostOn(world.client, 'h1')).metadata.resourceVersion, host.metadata.resourceVersion);
});

test("M-22 M-30: a recorded host BMO wrote after our read is claimed on a fresh copy after the 409, BMO's write kept", async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  await putHost(world, testHost('h1'));
  const scope = await world.scope();
  // BMO reports power on the server; our cache still holds the older copy.
  await world.newClient().api(BareMetalHostResource, NS).mergePatchStatus('h1', { status: { poweredOn: true } });
  const seen = requests(world.client);
  await upToHost(world, scope);
  await reconcileHostUpdate(world.ctx, scope);

  assert.equal(hostWrites(seen), ['PATCH baremetalhosts 409', 'PATCH baremetalhosts 200']);
  assert.ok(seen.includes('GET baremetalhosts 200'), 'the fresh copy was read');
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.is(host.spec?.image?.url, IMAGE.url);
  assert.is(host.status?.poweredOn, true, "BMO's write is kept");
  assert.is(scope.host?.metadata.resourceVersion, host.metadata.resourceVersion);
  assert.equal(scope.observed.association, { kind: 'Associated' });
});

test("M-22 M-40: a fresh copy showing another machine's claim forgets the record instead of writing the host", async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  await putHost(world, testHost('h1'));
  const scope = await world.scope();
  const hosts = world.newClient().api(BareMetalHostResource, NS);
  await hosts.replace(claimedHost(await hosts.get('h1'), { consumer: machineRef('m2', NS, 'uid-m2') }));
  await upToHost(world, scope);
  assert.equal(await reconcileHostUpdate(world.ctx, scope), {});

  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm2');
  assert.is(host.spec?.image, undefined, 'nothing of ours was written');
  assert.is((await world.client.api(Metal3MachineResource, NS).get('m1')).metadata.annotations?.[HOST_ANNOTATION], undefined);
  assert.equal(scope.observed.association, { kind: 'Host', message: `BareMetalHost ${NS}/h1 is consumed by Metal3Machine ${NS}/m2; choosing again` });
});

test('M-19 M-24 B2-8 (refused): a settled machine keeps its host without rewriting it and releases a stray; the pass ends there; Metal3DataReady is said only without a data template', async () => {
  const world = phaseWorld();
  const m1 = await machineScene(world, 'm1', {
    annotations: { [HOST_ANNOTATION]: `${NS}/h1` },
    spec: { image: IMAGE, providerID: `metal3://${NS}/h1/m1` },
    status: { ready: true },
    machineStatus: { nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } },
  });
  const consumer = machineRef('m1', NS, m1.metadata.uid);
  const kept = claimedHost(testHost('h1', { state: 'provisioned' }), { consumer, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } });
  Object.assign(kept.spec ?? {}, { image: IMAGE, online: true });
  await putHost(world, kept);
  await putHost(world, claimedHost(testHost('h2'), { consumer, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }));
  const first = await world.scope();
  reconcileSpec(world.ctx, first);
  assert.equal(await reconcileSettled(world.ctx, first), {}, 'settled: no further phase');
  assert.is((await hostOn(world.client, 'h2')).spec?.consumerRef, undefined, 'the stray is released');
  assert.equal(first.observed.association, { kind: 'Associated' });
  assert.is(first.observed.metadataAssociated, true);
  assert.equal(first.observed.data, { kind: 'External' });

  const seen = requests(world.client);
  const again = await world.scope();
  reconcileSpec(world.ctx, again);
  assert.equal(await reconcileSettled(world.ctx, again), {});
  assert.equal(hostWrites(seen), [], 'the held host is as the machine wants it: nothing sent');
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef?.name, 'm1');
  assert.is(host.spec?.image?.url, IMAGE.url);

  // With a data template the render's own condition stands: the settled pass says nothing of the data.
  const templated = await world.scope();
  templated.m3m.spec = { ...templated.m3m.spec, dataTemplate: { name: 'template-1' } };
  reconcileSpec(world.ctx, templated);
  assert.equal(await reconcileSettled(world.ctx, templated), {});
  assert.is(templated.observed.data, undefined);
});

test.run();
