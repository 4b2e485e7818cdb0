// Phase `finalizer` (M-17, M-18) on the fake apiserver: our finalizer goes on with a guarded write of
// its own, beside another controller's, and the written object becomes the working copy (so the final
// patch is computed against it); a machine that has it sends nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { METAL3_MACHINE_FINALIZER } from '../names.ts';
import { reconcileFinalizer } from './finalizer.ts';
import { machineScene, NS, phaseWorld, requests } from './testing.ts';

const test = suite('machine phases: finalizer (fake apiserver)');
const THEIRS = 'other.example.com/cleanup';

test("M-17 M-18: our finalizer is added beside another controller's and the written object becomes the working copy; the next pass sends nothing", async () => {
  const world = phaseWorld();
  await machineScene(world, 'm1', { finalizers: [THEIRS] });
  const scope = await world.scope();
  assert.is(await reconcileFinalizer(world.ctx, scope), undefined);

  const stored = await world.client.api(Metal3MachineResource, NS).get('m1');
  assert.equal(stored.metadata.finalizers, [THEIRS, METAL3_MACHINE_FINALIZER]);
  assert.is(scope.m3m.metadata.resourceVersion, stored.metadata.resourceVersion);
  assert.equal(scope.m3m.metadata.finalizers, stored.metadata.finalizers);

  const seen = requests(world.client);
  const again = await world.scope();
  await reconcileFinalizer(world.ctx, again);
  assert.equal(seen, []);
});

test.run();
