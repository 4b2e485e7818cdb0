// Phase `finalizer` (M-17, M-18) on the fake apiserver: our finalizer goes on beside another
// controller's with a guarded write of its own only where no other write carries it (issue 20):
// before the phases when the machine already records a host, after them when the pass recorded
// none; the host record carries it otherwise. The written object becomes the scope's base and the
// working copy takes its finalizers, so the final patch is computed against it; a machine that has
// it sends nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { reconcileFinalizer, reconcileLateFinalizer } from './finalizer.ts';
import { recordHost } from './host-record.ts';
import { machineScene, NS, phaseWorld, requests } from './testing.ts';

const test = suite('machine phases: finalizer (fake apiserver)');
const THEIRS = 'other.example.com/cleanup';

test("M-17 M-18: a pass that recorded no host adds our finalizer after its phases, beside another controller's; the next pass sends nothing", async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: [THEIRS] });
  const scope = await world.scope();
  const seen = requests(world.client);
  assert.is(await reconcileFinalizer(world.ctx, scope), undefined);
  assert.equal(seen, [], 'no record: before the phases, nothing (the record write would carry it)');
  assert.is(await reconcileLateFinalizer(world.ctx, scope), undefined);

  const stored = await world.client.api(Metal3MachineResource, NS).get('m1');
  assert.equal(stored.metadata.finalizers, [THEIRS, METAL3_MACHINE_FINALIZER]);
  assert.is(scope.base.metadata.resourceVersion, stored.metadata.resourceVersion);
  assert.equal(scope.m3m.metadata.finalizers, stored.metadata.finalizers);
  assert.is(scope.m3m.metadata.resourceVersion, stored.metadata.resourceVersion);

  const again = await world.scope();
  const later = requests(world.client);
  await reconcileFinalizer(world.ctx, again);
  await reconcileLateFinalizer(world.ctx, again);
  assert.equal(later, []);
});

test('M-18: a machine that already records a host gets our finalizer before the phases (a claim may follow without a record write)', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  const scope = await world.scope();
  await reconcileFinalizer(world.ctx, scope);
  const stored = await world.client.api(Metal3MachineResource, NS).get('m1');
  assert.equal(stored.metadata.finalizers, [METAL3_MACHINE_FINALIZER]);
  assert.equal(scope.m3m.metadata.finalizers, [METAL3_MACHINE_FINALIZER]);
  assert.is(scope.m3m.metadata.annotations?.[HOST_ANNOTATION], `${NS}/h1`);
});

test("M-18 M-41 (issue 20): the host record carries our finalizer in its one locked write, beside another controller's; a stale copy is re-read, never merged over", async () => {
  const world = phaseWorld();
  const made = await machineScene(world, 'm1', { finalizers: [THEIRS] });
  // Another controller adds its finalizer after our copy was read: the lock refuses our write, the fresh copy keeps theirs.
  const api = world.client.api(Metal3MachineResource, NS);
  await api.mergePatch('m1', { metadata: { finalizers: [THEIRS, 'late.example.com/too'] } });
  const seen = requests(world.client);
  const record = await recordHost(api, made, `${NS}/h1`);
  assert.is(record?.host, `${NS}/h1`);
  const stored = await api.get('m1');
  assert.equal(stored.metadata.finalizers, [THEIRS, 'late.example.com/too', METAL3_MACHINE_FINALIZER]);
  assert.is(stored.metadata.annotations?.[HOST_ANNOTATION], `${NS}/h1`);
  assert.equal(seen.filter((r) => r.startsWith('PATCH')), ['PATCH metal3machines 409', 'PATCH metal3machines 200']);
});

test('M-17: a machine being deleted records no host (and so claims none)', async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: [THEIRS] });
  const api = world.client.api(Metal3MachineResource, NS);
  await api.delete('m1');
  const deleting = await api.get('m1');
  assert.ok(deleting.metadata.deletionTimestamp);
  assert.is(await recordHost(api, deleting, `${NS}/h1`), undefined);
  assert.is((await api.get('m1')).metadata.annotations?.[HOST_ANNOTATION], undefined);
});

test.run();
