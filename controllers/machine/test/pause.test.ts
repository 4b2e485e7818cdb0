// Pause propagation of the Metal3Machine controller against a real apiserver, with the simulated BMO,
// the real Cluster API and one workload cluster (research M-14, M-15, M-16, E-4 changed, E-41, seed 002:
// "pause propagation to the host … and back"). A paused Cluster pauses the host of each of its
// machines with `baremetalhost.metal3.io/paused: metal3.io/capm3` and a copy of the host status;
// un-pausing lifts only that pause; a user's pause (any other value) is never touched; the
// `cluster.x-k8s.io/paused` annotation on a Metal3Machine stops its reconciliation. The tests share
// one namespace and run in order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { CAPM3_PAUSE_VALUE, HOST_PAUSED_ANNOTATION as PAUSED_ANNOTATION, STATUS_ANNOTATION } from '@metal3-ts/baremetal/names';
import { HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../src/names.ts';
import {
  CAPI_PAUSED_ANNOTATION,
  CLUSTER,
  createMachine,
  EVENT_MS,
  eventually,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  settled,
  sleep,
  v1,
  v2,
  when,
} from './support.ts';

/** A pause or un-pause is one event away: this file holds those steps to half of EVENT_MS. */
const PAUSE_MS = EVENT_MS / 2;

const test = suite('Metal3Machine pause propagation (M-14, M-15, M-16)');
const scene = machineTestScene(test, { prefix: 'machine-pause', hosts: { 'pause-a': { group: 'a' }, 'pause-b': { group: 'b' } } });

const hosts = () => scene.client.api(BareMetalHostResource, scene.ns);
const setClusterPaused = (paused: boolean) => scene.client.api(ClusterResource, scene.ns).mergePatch(CLUSTER, { spec: { paused } });

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The host status as CAPM3 stores it beside its pause: without the top-level `hardware` key. */
function statusWithoutHardware(host: BareMetalHost): unknown {
  const { hardware: _hardware, ...rest } = (host.status ?? {}) as Record<string, unknown>;
  return rest;
}

/** Every version of host `name` the apiserver reports after `resourceVersion`, until stopped. */
function recordHost(name: string, resourceVersion: string): { versions: BareMetalHost[]; stop(): Promise<void> } {
  const versions: BareMetalHost[] = [];
  const abort = new AbortController();
  const done = (async () => {
    try {
      for await (const event of hosts().watch({ resourceVersion, fieldSelector: `metadata.name=${name}`, signal: abort.signal })) {
        if (event.type === 'MODIFIED' || event.type === 'ADDED') versions.push(event.object as BareMetalHost);
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return {
    versions,
    async stop() {
      abort.abort();
      await done;
    },
  };
}

test('M-14, seed 002: pausing the Cluster pauses the host (metal3.io/capm3 + the sorted, compact status copy without hardware) at once; Paused True/Paused, AssociateBMH False/Metal3MachinePaused/Info', async () => {
  await createMachine(scene.client, scene.ns, 'pm-0', { spec: { image: IMAGE, hostSelector: { matchLabels: { group: 'a' } } } });
  await metal3MachineWhen(scene.client, scene.ns, 'pm-0', 'pm-0 ready', (m) => m.status?.ready === true, 40_000);
  await when(scene.client, MachineResource, scene.ns, 'pm-0', 'the Machine with its Node', (m) => !!m.status?.nodeRef, 30_000);
  // Settled: no requeue is pending any more (the Node was found); only an event can wake pm-0 now.
  await settled(scene.controller, scene.controller.reconciles() - 1, 1_000);
  let m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('pm-0');
  assert.is(v2(m3m, 'Paused'), 'False/NotPaused', 'not paused before');
  const before = await hosts().get('pause-a');
  assert.is(before.metadata.annotations?.[PAUSED_ANNOTATION], undefined);
  assert.is(before.status?.provisioning?.state, 'provisioned');

  const start = performance.now();
  await setClusterPaused(true);
  const host = await hostWhen(
    scene.client,
    scene.ns,
    'pause-a',
    'pause-a paused by us',
    (h) => h.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined,
    PAUSE_MS,
  );
  const elapsed = performance.now() - start;
  assert.ok(elapsed < PAUSE_MS, `the Cluster update event paused the host in ${Math.round(elapsed)} ms (no poll: the safety net is 120 s)`);

  assert.is(host.metadata.annotations?.[PAUSED_ANNOTATION], CAPM3_PAUSE_VALUE, 'M-14: our pause value');
  const raw = host.metadata.annotations?.[STATUS_ANNOTATION];
  assert.type(raw, 'string', 'M-14: the status annotation is written with the pause');
  const saved: unknown = JSON.parse(raw ?? '');
  assert.is(raw, JSON.stringify(sortKeys(saved)), 'compact JSON with the keys sorted at every level');
  assert.not.ok('hardware' in (saved as object), 'no top-level hardware key');
  assert.equal(saved, statusWithoutHardware(host), 'the host status (BMO writes nothing while paused), minus hardware');
  assert.ok(host.status?.hardware, 'the host itself still has its hardware details');
  assert.equal(host.spec?.consumerRef?.name, 'pm-0');

  m3m = await metal3MachineWhen(scene.client, scene.ns, 'pm-0', 'pm-0 Paused', (m) => v2(m, 'Paused') === 'True/Paused', PAUSE_MS);
  assert.is(v1(m3m, 'AssociateBMH'), 'False/Metal3MachinePaused/Info', 'M-16 (v1beta1)');
  assert.is(m3m.status?.ready, true, 'pausing does not unready the machine');

  // Nothing moves while paused: BMO and the controller leave the host as it is.
  await sleep(500);
  const still = await hosts().get('pause-a');
  assert.is(still.metadata.annotations?.[PAUSED_ANNOTATION], CAPM3_PAUSE_VALUE);
  assert.is(still.metadata.annotations?.[STATUS_ANNOTATION], raw);
  assert.is(scene.controller.errors(), 0);
});

test('M-15, E-4 (changed), E-41: un-pausing removes only our pause annotation (the status copy stays in that write); Paused False/NotPaused', async () => {
  const paused = await hosts().get('pause-a');
  const statusCopy = paused.metadata.annotations?.[STATUS_ANNOTATION];
  assert.type(statusCopy, 'string');
  const recorder = recordHost('pause-a', paused.metadata.resourceVersion ?? '');
  try {
    const start = performance.now();
    await setClusterPaused(false);
    await hostWhen(scene.client, scene.ns, 'pause-a', 'pause-a un-paused', (h) => h.metadata.annotations?.[PAUSED_ANNOTATION] === undefined, PAUSE_MS);
    assert.ok(performance.now() - start < PAUSE_MS, 'woken by the Cluster update');
    const m3m = await metal3MachineWhen(scene.client, scene.ns, 'pm-0', 'pm-0 not paused', (m) => v2(m, 'Paused') === 'False/NotPaused', PAUSE_MS);
    assert.is(getV1Beta2Condition(m3m, 'Paused')?.status, 'False', 'E-4 (changed): False, not upstream True');
    await eventually(
      'the un-pausing write on the watch',
      () => (recorder.versions.some((h) => h.metadata.annotations?.[PAUSED_ANNOTATION] === undefined) ? true : undefined),
      PAUSE_MS,
    );
  } finally {
    await recorder.stop();
  }
  // The write that lifted our pause is ours (BMO acts on nothing while the host is paused): it kept the
  // status copy (E-41). BMO itself drops the copy afterwards, as a host with a status no longer needs it.
  const lifted = recorder.versions.find((h) => h.metadata.annotations?.[PAUSED_ANNOTATION] === undefined);
  assert.ok(lifted);
  assert.is(lifted?.metadata.annotations?.[STATUS_ANNOTATION], statusCopy, 'E-41: the status annotation is not removed with the pause');
  assert.equal(lifted?.spec, paused.spec, 'nothing else of the host changed in that write');
  assert.equal(lifted?.metadata.labels, paused.metadata.labels);
  assert.is(scene.controller.errors(), 0);
});

test("M-14, M-15: a user's pause (any other value) is neither overwritten nor removed; the machine still reports Paused and then NotPaused", async () => {
  // BMO drops the status copy of a host that has a status once it is no longer paused (E-41 note above).
  await hostWhen(
    scene.client,
    scene.ns,
    'pause-a',
    'the status copy dropped by BMO',
    (h) => h.metadata.annotations?.[STATUS_ANNOTATION] === undefined,
    PAUSE_MS,
  );
  await hosts().mergePatch('pause-a', { metadata: { annotations: { [PAUSED_ANNOTATION]: 'user-maintenance' } } });
  await settled(scene.controller, scene.controller.reconciles() - 1, 500);
  const hostWrites = scene.controller.writes('baremetalhosts');

  await setClusterPaused(true);
  let m3m = await metal3MachineWhen(scene.client, scene.ns, 'pm-0', 'pm-0 Paused', (m) => v2(m, 'Paused') === 'True/Paused', PAUSE_MS);
  assert.is(v1(m3m, 'AssociateBMH'), 'False/Metal3MachinePaused/Info');
  let host = await hosts().get('pause-a');
  assert.is(host.metadata.annotations?.[PAUSED_ANNOTATION], 'user-maintenance', 'M-14: already paused by anyone ⇒ nothing');
  assert.is(host.metadata.annotations?.[STATUS_ANNOTATION], undefined, 'M-14: no status copy for a host paused by someone else');

  await setClusterPaused(false);
  m3m = await metal3MachineWhen(scene.client, scene.ns, 'pm-0', 'pm-0 not paused', (m) => v2(m, 'Paused') === 'False/NotPaused', PAUSE_MS);
  await settled(scene.controller, scene.controller.reconciles() - 1, 500);
  host = await hosts().get('pause-a');
  assert.is(host.metadata.annotations?.[PAUSED_ANNOTATION], 'user-maintenance', "M-15: a user's pause is never lifted");
  assert.is(scene.controller.writes('baremetalhosts'), hostWrites, 'no host write at all for the pause and the un-pause');

  await hosts().mergePatch('pause-a', { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } });
  assert.is(scene.controller.errors(), 0);
});

test('M-16: a Metal3Machine created with cluster.x-k8s.io/paused is not reconciled (no finalizer, no host claimed); removing the annotation lets it claim its host at once', async () => {
  await createMachine(scene.client, scene.ns, 'pm-1', {
    spec: { image: IMAGE, hostSelector: { matchLabels: { group: 'b' } } },
    annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' },
  });
  await sleep(1_500);
  let m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('pm-1');
  assert.is(m3m.metadata.finalizers, undefined, 'M-16 before M-18: no finalizer');
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined, 'no host');
  let host = await hosts().get('pause-b');
  assert.is(host.spec?.consumerRef, undefined, 'the available host is not claimed');
  assert.is(host.status?.provisioning?.state, 'available');

  const start = performance.now();
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('pm-1', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: null } } });
  m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'pm-1',
    'pm-1 with a host',
    (m) => m.metadata.annotations?.[HOST_ANNOTATION] === `${scene.ns}/pause-b`,
    PAUSE_MS,
  );
  assert.ok(performance.now() - start < PAUSE_MS, 'woken by the annotation removal');
  assert.ok(m3m.metadata.finalizers?.includes(METAL3_MACHINE_FINALIZER));
  assert.is(v2(m3m, 'Paused'), 'False/NotPaused');
  host = await hostWhen(
    scene.client,
    scene.ns,
    'pause-b',
    'pause-b provisioned for pm-1',
    (h) => h.spec?.consumerRef?.name === 'pm-1' && h.status?.provisioning?.state === 'provisioned',
    30_000,
  );
  assert.is(host.metadata.annotations?.[PAUSED_ANNOTATION], undefined, 'the Cluster is not paused: the host is not paused either');
});

test('M-16, M-31: adding cluster.x-k8s.io/paused to a running Metal3Machine reports Paused True/Paused and stops reconciliation (E-9 power is not re-asserted) until it is removed', async () => {
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('pm-1', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' } } });
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'pm-1', 'pm-1 Paused', (m) => v2(m, 'Paused') === 'True/Paused', PAUSE_MS);
  assert.is(v1(m3m, 'AssociateBMH'), 'False/Metal3MachinePaused/Info');
  let host = await hosts().get('pause-b');
  assert.is(host.metadata.annotations?.[PAUSED_ANNOTATION], undefined, 'only a paused Cluster pauses the host (M-14)');

  // A reconciling machine switches its host back on (E-9); a paused one leaves it alone.
  await hosts().mergePatch('pause-b', { spec: { online: false } });
  await sleep(1_500);
  host = await hosts().get('pause-b');
  assert.is(host.spec?.online, false, 'M-16: no reconciliation while paused');

  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('pm-1', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: null } } });
  host = await hostWhen(scene.client, scene.ns, 'pause-b', 'pause-b powered on again', (h) => h.spec?.online === true, PAUSE_MS);
  assert.is(host.spec?.consumerRef?.name, 'pm-1');
  const resumed = await metal3MachineWhen(scene.client, scene.ns, 'pm-1', 'pm-1 not paused', (m) => v2(m, 'Paused') === 'False/NotPaused', PAUSE_MS);
  assert.is(v1(resumed, 'AssociateBMH'), 'True//', 'M-31: AssociateBMH is True again once reconciling resumes (v1beta1 Ready follows)');
  assert.is(scene.controller.errors(), 0);
  assert.equal(scene.controller.problems(), []);
});

test.run();
