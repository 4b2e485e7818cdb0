// Phase `pause` (M-14…M-16) on the fake apiserver: a paused Cluster pauses the machine's host with
// our annotation value, un-pausing lifts only ours, and a refused write is a failed propagation the
// Paused condition tells (observations.pause), looked at again after the safety-net interval.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError } from '@metal3-ts/generated';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { CAPM3_PAUSE_VALUE, HOST_PAUSED_ANNOTATION, STATUS_ANNOTATION } from '@metal3-ts/baremetal/names';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import { reconcilePause } from './pause.ts';
import { CLUSTER, hostOn, machineScene, NS, type PhaseWorld, phaseWorld, putHost } from './testing.ts';

const test = suite('machine phases: pause (fake apiserver)');

async function heldHost(world: PhaseWorld, paused: boolean, annotations?: Record<string, string>, cluster = CLUSTER) {
  const m1 = await machineScene(world, 'm1', { paused, annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  const host = testHost('h1', { state: 'provisioned', ...(annotations ? { annotations } : {}) });
  await putHost(world, claimedHost(host, { consumer: machineRef('m1', NS, m1.metadata.uid), labels: { [CLUSTER_NAME_LABEL]: cluster } }));
}

const pausedValue = async (world: PhaseWorld) => (await hostOn(world.client, 'h1')).metadata.annotations?.[HOST_PAUSED_ANNOTATION];

test('M-14 M-16: a paused Cluster pauses the host with our value and its status saved; un-pausing lifts it', async () => {
  const world = phaseWorld();
  await heldHost(world, true);
  const scope = await world.scope();
  assert.is(await reconcilePause(world.ctx, scope), undefined);
  assert.is(scope.observed.pause, 'Paused');
  assert.is(await pausedValue(world), CAPM3_PAUSE_VALUE);
  assert.ok((await hostOn(world.client, 'h1')).metadata.annotations?.[STATUS_ANNOTATION], 'BMO can restore the status from the annotation');

  await world.client.api(ClusterResource, NS).mergePatch(CLUSTER, { spec: { paused: false } });
  const next = await world.scope();
  assert.is(await reconcilePause(world.ctx, next), undefined);
  assert.is(next.observed.pause, 'NotPaused');
  assert.is(await pausedValue(world), undefined);
});

test("M-15: a user's own pause (another value) is never lifted", async () => {
  const world = phaseWorld();
  await heldHost(world, false, { [HOST_PAUSED_ANNOTATION]: 'user' });
  const scope = await world.scope();
  assert.is(await reconcilePause(world.ctx, scope), undefined);
  assert.is(scope.observed.pause, 'NotPaused');
  assert.is(await pausedValue(world), 'user');
});

test("M-15: our pause on a host labelled with another cluster is that cluster's business: not lifted", async () => {
  const world = phaseWorld();
  await heldHost(world, false, { [HOST_PAUSED_ANNOTATION]: CAPM3_PAUSE_VALUE }, 'other');
  const scope = await world.scope();
  assert.is(await reconcilePause(world.ctx, scope), undefined);
  assert.is(scope.observed.pause, 'NotPaused');
  assert.is(await pausedValue(world), CAPM3_PAUSE_VALUE);
});

test('M-14: a refused pause write is recorded as a failed propagation and looked at again after the safety net', async () => {
  const world = phaseWorld();
  await heldHost(world, true);
  world.client.transport.hooks = {
    before: (request) => {
      if (request.method === 'PATCH' && request.path.includes('/baremetalhosts/')) {
        return Promise.reject(
          apiError(403, { reason: 'Forbidden', message: 'baremetalhosts is forbidden', code: 403 } as never, { verb: request.method, path: request.path }),
        );
      }
      return Promise.resolve();
    },
  };
  const scope = await world.scope();
  assert.equal(await reconcilePause(world.ctx, scope), world.ctx.safetyNet);
  const pause = scope.observed.pause;
  assert.ok(typeof pause === 'object' && pause.failed === 'set', JSON.stringify(pause));
  assert.match(typeof pause === 'object' ? pause.message : '', /403/);
  assert.is(await pausedValue(world), undefined, 'nothing written');
});

test.run();
