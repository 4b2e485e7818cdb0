// Phase `metadata` (M-28, M-35) on the fake apiserver: with a data template the Metal3DataClaim is
// created once, named like the machine, owned by it and holding our finalizer; Secrets the spec
// names become the data references; the phase records that the metadata step succeeded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { METAL3_MACHINE_FINALIZER } from '../names.ts';
import { reconcileMetadata } from './metadata.ts';
import { IMAGE, machineScene, NS, phaseWorld, requests } from './testing.ts';

const test = suite('machine phases: metadata (fake apiserver)');

test('M-28 M-35 DC-1: a data template gets its claim created once (owned, with our finalizer); the template namespace is defaulted', async () => {
  const world = phaseWorld();
  const m1 = await machineScene(world, 'm1', { spec: { image: IMAGE, dataTemplate: { name: 'dt' } } });
  const seen = requests(world.client);
  const scope = await world.scope();
  assert.is(await reconcileMetadata(world.ctx, scope), undefined);

  const claim = await world.client.api(Metal3DataClaimResource, NS).get('m1');
  assert.equal(claim.spec?.template, { name: 'dt', namespace: NS });
  assert.equal(claim.metadata.finalizers, [METAL3_MACHINE_FINALIZER]);
  assert.equal(claim.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['Metal3Machine', 'm1', m1.metadata.uid, true]]);
  assert.is(scope.m3m.spec?.dataTemplate?.namespace, NS, 'persisted by the final patch');
  assert.is(scope.observed.metadataAssociated, true);
  assert.equal(scope.observed.node, { kind: 'Waiting', message: 'Waiting for the Node of the workload cluster' });
  assert.equal(seen.filter((r) => r.startsWith('POST')), ['POST metal3dataclaims 201']);

  seen.length = 0;
  const again = await world.scope();
  await reconcileMetadata(world.ctx, again);
  assert.equal(seen, [], 'the cached claim is not created again');
});

test('M-35: Secrets named in the spec become the data references; without a data template no claim is made', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { spec: { image: IMAGE, metaData: { name: 'md', namespace: NS }, networkData: { name: 'nd', namespace: NS } } });
  const scope = await world.scope();
  await reconcileMetadata(world.ctx, scope);
  assert.is(scope.observed.references?.metaData?.name, 'md');
  assert.is(scope.observed.references?.networkData?.name, 'nd');
  assert.equal((await world.client.api(Metal3DataClaimResource, NS).list()).items, []);
});

test.run();
