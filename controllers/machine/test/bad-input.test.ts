// Bad input and missing neighbours, against a real apiserver with the simulated BMO and the real
// Cluster API (no workload cluster). Invalid configuration is terminal (seed 002): failureReason
// InvalidConfiguration with a failureMessage, a condition with reason and message, a Warning event,
// no retry loop, no host claimed twice, and deletion still works. A missing owner Machine, Cluster,
// Cluster infrastructure or Metal3Cluster is a wait with a condition that ends with the event that
// brings the missing piece (M-9, M-11…M-13). The tests share one namespace and run in order: the
// terminal ones first, while nothing else in the namespace is being reconciled, so that "no retry
// loop" can be read from the controller's reconcile counter.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterResource, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3Cluster,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../src/names.ts';
import {
  BOOTSTRAP_SECRET,
  CAPI_PAUSED_ANNOTATION,
  CLUSTER,
  consumers,
  createClusterScene,
  createMachine,
  EVENT_MS,
  eventsFor,
  eventually,
  gone,
  hostNamed,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  settled,
  sleep,
  v1,
  v1Message,
  v2,
  v2Message,
} from './support.ts';

const test = suite('Metal3Machine bad input and missing neighbours');
const scene = machineTestScene(test, {
  prefix: 'machine-bad-input',
  world: { workload: false },
  hosts: ['host-0', 'host-1', 'host-2', 'host-3', 'host-4', 'host-5', 'host-6'],
});

const failed = (m: Metal3Machine) => m.status?.failureReason === 'InvalidConfiguration';

/** The Warning event `InvalidConfiguration` about `name` (events are sent asynchronously). */
async function invalidConfigurationEvent(name: string, message: string): Promise<void> {
  const events = await eventually(`a Warning event InvalidConfiguration for ${name}`, async () => {
    const found = await eventsFor(scene.client, scene.ns, name, 'InvalidConfiguration');
    return found.length > 0 ? found : undefined;
  }, EVENT_MS);
  assert.ok(events.every((e) => e.type === 'Warning'));
  assert.ok(events.some((e) => (e.message ?? '').includes(message)), `event message: ${events.map((e) => e.message).join(' | ')}`);
}

/**
 * No retry loop: once the controller went quiet after `reconcilesBefore`, it stays quiet (no reconcile,
 * no error) for another 1.5 s. Only valid while no other machine of the namespace is being worked on.
 */
async function staysQuiet(reconcilesBefore: number): Promise<void> {
  await settled(scene.controller, reconcilesBefore, 1_000);
  const reconciles = scene.controller.reconciles();
  const errors = scene.controller.errors();
  const writes = scene.controller.writes();
  await sleep(1_500);
  assert.is(scene.controller.reconciles(), reconciles, 'no reconcile after the terminal failure');
  assert.is(scene.controller.errors(), errors, 'no error retried');
  assert.is(scene.controller.writes(), writes, 'no write');
}

/**
 * Waits until the Metal3Machine has a host; a timeout names the conditions it was left with, so a
 * machine stuck in a wait says which one.
 */
async function proceeds(name: string, what: string): Promise<Metal3Machine> {
  try {
    // The annotation and the status are two writes (main resource, then status): wait for both.
    return await metal3MachineWhen(
      scene.client,
      scene.ns,
      name,
      what,
      (m) => !!m.metadata.annotations?.[HOST_ANNOTATION] && v1(m, 'AssociateBMH') === 'True//',
      EVENT_MS,
    );
  } catch (error) {
    const m = await scene.client.api(Metal3MachineResource, scene.ns).get(name);
    const cluster = await scene.client.api(ClusterResource, scene.ns).get(m.metadata.labels?.[CLUSTER_NAME_LABEL] ?? '').catch(() => undefined);
    // Diagnosis: does any event at all get it going? Touch its Metal3Machine.
    await scene.client.api(Metal3MachineResource, scene.ns).mergePatch(name, { metadata: { labels: { 'test.metal3-ts.dev/nudge': 'yes' } } });
    const nudged = await metal3MachineWhen(
      scene.client,
      scene.ns,
      name,
      `${name} with a host after a nudge`,
      (x) => !!x.metadata.annotations?.[HOST_ANNOTATION],
      5_000,
    ).then(() => true, () => false);
    throw new Error(
      `${name} never got a host: AssociateBMH ${v1(m, 'AssociateBMH')} "${v1Message(m, 'AssociateBMH')}", ` +
        `Cluster infrastructureReady=${String(cluster?.status?.infrastructureReady)}; ` +
        `${
          nudged
            ? 'it proceeded at once after an unrelated edit of the Metal3Machine: the wait was never woken'
            : 'not even an edit of the Metal3Machine got it going'
        } ` +
        `(${String(error).split('\n')[0]})`,
    );
  }
}

async function deleteAndWaitGone(name: string): Promise<void> {
  await scene.client.api(Metal3MachineResource, scene.ns).delete(name);
  await gone(scene.client, Metal3MachineResource, scene.ns, name, EVENT_MS);
}

test('M-9: a Metal3Machine without an owner Machine waits for one, without finalizer or retries', async () => {
  const reconcilesBefore = scene.controller.reconciles();
  const errorsBefore = scene.controller.errors();
  await scene.client.api(Metal3MachineResource, scene.ns).create(
    newMetal3Machine({ metadata: { name: 'orphan', labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }, spec: { image: IMAGE } }),
  );
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'orphan',
    'orphan waiting for its owner',
    (m) => v1(m, 'AssociateBMH') === 'False/WaitingForM3MachineOwnerRef/Info',
    EVENT_MS,
  );
  assert.is(v1Message(m3m, 'AssociateBMH'), '', 'M-9: the v1beta1 condition has no message');
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/WaitingForMetal3MachineOwnerRef');
  assert.is(v2Message(m3m, 'AssociateBareMetalHost'), 'Waiting for Machine Controller to set OwnerRef on Metal3Machine');
  assert.is(m3m.metadata.finalizers, undefined, 'the finalizer comes only once the machine is ours to reconcile');
  assert.is(m3m.status?.failureReason, undefined);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined);
  await staysQuiet(reconcilesBefore);
  assert.is(scene.controller.errors(), errorsBefore);
  assert.is((await consumers(scene.client, scene.ns)).get('orphan'), undefined, 'no host claimed');
});

test('M-23, issue 21, CT-23: spec.userData in another namespace is invalid configuration: terminal, no host claimed, no retry loop; on the Machine only under the v1beta1 contract', async () => {
  const reconcilesBefore = scene.controller.reconciles();
  const errorsBefore = scene.controller.errors();
  // The Machine names a data Secret, which would win (E-8): the cross-namespace check runs first anyway.
  await createMachine(scene.client, scene.ns, 'bad-ud', { spec: { image: IMAGE, userData: { name: 'user-data', namespace: 'elsewhere' } } });
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'bad-ud', 'bad-ud failed', failed, EVENT_MS);
  const message = 'spec.userData.namespace ("elsewhere"): must be empty or the Metal3Machine namespace';
  assert.ok(m3m.status?.failureMessage?.includes(message), `failureMessage: ${m3m.status?.failureMessage}`);
  assert.ok(m3m.status?.failureMessage?.includes('cross-namespace references are not allowed'), 'the message says why');
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error');
  assert.ok(v1Message(m3m, 'AssociateBMH').includes(message));
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed');
  assert.ok(v2Message(m3m, 'AssociateBareMetalHost').includes(message));
  assert.is(v1(m3m, 'Ready'), 'False/AssociateBMHFailed/Error', 'M-42: the summary carries the failure');
  assert.is(m3m.status?.userData, undefined);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined);
  assert.ok(m3m.metadata.finalizers?.includes(METAL3_MACHINE_FINALIZER));
  await invalidConfigurationEvent('bad-ud', message);
  await staysQuiet(reconcilesBefore);
  assert.ok(
    scene.controller.errors() - errorsBefore <= 1,
    `a terminal failure is reported once, not retried (errors +${scene.controller.errors() - errorsBefore})`,
  );
  assert.is((await consumers(scene.client, scene.ns)).get('bad-ud'), undefined, 'no host claimed');
  if (scene.capi.version === 'v1.10.10') {
    // seed 002, the v1beta1 contract: Cluster API sees the failure on the Machine.
    const machine = await eventually('the Machine failed', async () => {
      const m = await scene.client.api(MachineResource, scene.ns).get('bad-ud');
      return m.status?.failureReason ? m : undefined;
    }, EVENT_MS);
    assert.is(machine.status?.failureReason, 'InvalidConfiguration');
  } else {
    // CT-23: newer releases read our objects at v1beta2, whose contract has no failure fields; the
    // failure stays on the Metal3Machine (and its conditions), never on the Machine.
    const machine = await scene.client.api(MachineResource, scene.ns).get('bad-ud');
    assert.is(machine.status?.failureReason, undefined);
  }
});

test('seed 002: a failed Metal3Machine is not reconciled any further (no write), but deletion works', async () => {
  const api = scene.client.api(Metal3MachineResource, scene.ns);
  const before = await api.get('bad-ud');
  const reconciles = scene.controller.reconciles();
  const writes = scene.controller.writes();
  await api.mergePatch('bad-ud', { metadata: { labels: { touched: 'yes' } } });
  await settled(scene.controller, reconciles, 1_000);
  assert.is(scene.controller.writes(), writes, 'the reconcile that followed the edit wrote nothing');
  const after = await api.get('bad-ud');
  assert.equal(after.status, before.status, 'status untouched (not even lastUpdated)');
  assert.is((await consumers(scene.client, scene.ns)).get('bad-ud'), undefined, 'still no host claimed');

  await deleteAndWaitGone('bad-ud');
});

test('M-40: a host annotation with more than one "/" is invalid configuration; deletion still works', async () => {
  const reconcilesBefore = scene.controller.reconciles();
  await createMachine(scene.client, scene.ns, 'bad-ann', { annotations: { [HOST_ANNOTATION]: 'a/b/c' } });
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'bad-ann', 'bad-ann failed', failed, EVENT_MS);
  assert.ok(m3m.status?.failureMessage?.includes('a/b/c'), `failureMessage: ${m3m.status?.failureMessage}`);
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error');
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed');
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], 'a/b/c', 'the bad value is left for the user to fix');
  await invalidConfigurationEvent('bad-ann', 'a/b/c');
  await staysQuiet(reconcilesBefore);
  assert.is((await consumers(scene.client, scene.ns)).get('bad-ann'), undefined, 'no host claimed');
  await deleteAndWaitGone('bad-ann');
});

for (
  const [id, field, value] of [
    ['M-35 step 1', 'metaData', { name: 'md', namespace: 'elsewhere' }],
    ['M-35 step 1', 'networkData', { name: 'nd', namespace: 'elsewhere' }],
    ['M-35 step 5', 'dataTemplate', { name: 'tmpl', namespace: 'elsewhere' }],
  ] as const
) {
  test(`${id} (changed, issue 21): spec.${field} in another namespace is invalid configuration before any host is claimed; no claim; deletion works`, async () => {
    const name = `bad-${field.toLowerCase()}`;
    const reconcilesBefore = scene.controller.reconciles();
    await createMachine(scene.client, scene.ns, name, { spec: { image: IMAGE, [field]: value } });
    const m3m = await metal3MachineWhen(scene.client, scene.ns, name, `${name} failed`, failed, EVENT_MS);
    const message =
      `spec.${field}.namespace ("elsewhere"): must be empty or the Metal3Machine namespace "${scene.ns}"; cross-namespace references are not allowed`;
    assert.is(m3m.status?.failureMessage, message);
    assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error');
    assert.ok(v1Message(m3m, 'AssociateBMH').includes(message));
    assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed');
    assert.equal(m3m.spec?.[field], value, 'the spec is not rewritten');
    assert.is(m3m.status?.metaData, undefined);
    await invalidConfigurationEvent(name, `spec.${field}.namespace`);
    await staysQuiet(reconcilesBefore);
    assert.is((await consumers(scene.client, scene.ns)).get(name), undefined, 'no host claimed');
    try {
      await scene.client.api(Metal3DataClaimResource, scene.ns).get(name);
      assert.unreachable('no Metal3DataClaim may be created');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    await deleteAndWaitGone(name);
  });
}

test('M-13: a missing Metal3Cluster is a wait (upstream spelling WaitingforMetal3Cluster); creating it lets the machine proceed', async () => {
  // The Cluster is infrastructure-ready by hand (as after a Metal3Cluster deletion): the guard's next step is M-13.
  const clusters = scene.client.api(ClusterResource, scene.ns);
  await clusters.create(
    newCluster({
      metadata: { name: 'nom3c' },
      spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: 'nom3c' } },
    }),
  );
  await eventually('Cluster API took nom3c', async () => ((await clusters.get('nom3c')).metadata.finalizers?.length ? true : undefined), EVENT_MS);
  await clusters.mergePatchStatus('nom3c', { status: { infrastructureReady: true } });
  const errorsBefore = scene.controller.errors();
  await createMachine(scene.client, scene.ns, 'nm-0', { cluster: 'nom3c' });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'nm-0',
    'nm-0 waiting for the Metal3Cluster',
    (m) => v1(m, 'AssociateBMH') === 'False/WaitingforMetal3Cluster/Info',
    EVENT_MS,
  );
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/WaitingforMetal3Cluster');
  assert.is(v2Message(m3m, 'AssociateBareMetalHost'), 'Waiting for Metal3Cluster Controller to create the Metal3Cluster');
  assert.is(m3m.status?.failureReason, undefined);
  assert.is(scene.controller.errors(), errorsBefore, 'a wait, not an error');

  // Created paused and ready, then un-paused: never seen not ready, so the
  // Cluster stays infrastructure-ready throughout (the M-12 bug below cannot interfere here).
  const m3cs = scene.client.api(Metal3ClusterResource, scene.ns);
  await m3cs.create(
    newMetal3Cluster({
      metadata: { name: 'nom3c', annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: false, noCloudProvider: true },
    }),
  );
  await m3cs.mergePatchStatus('nom3c', { status: { ready: true } });
  await m3cs.mergePatch('nom3c', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: null } } });
  const done = await proceeds('nm-0', 'nm-0 with a host');
  assert.is((await clusters.get('nom3c')).status?.infrastructureReady, true);
  assert.is(v1(done, 'AssociateBMH'), 'True//');
  assert.is(scene.controller.errors(), errorsBefore);
});

// The Cluster update that makes its infrastructure ready wakes the waiting machine (the Cluster
// watch passes that transition, as Cluster API's ClusterPausedTransitionsOrInfrastructureReady does):
// the Metal3Cluster's own status change comes before Cluster API copies the readiness to the Cluster.
test('M-12: Cluster infrastructure not ready is a wait; the machine proceeds as soon as it is ready', async () => {
  const m3cs = scene.client.api(Metal3ClusterResource, scene.ns);
  await m3cs.create(
    newMetal3Cluster({
      metadata: { name: 'noinfra' },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: false, noCloudProvider: true },
    }),
  );
  await scene.client.api(ClusterResource, scene.ns).create(
    newCluster({
      metadata: { name: 'noinfra' },
      spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: 'noinfra' } },
    }),
  );
  const errorsBefore = scene.controller.errors();
  await createMachine(scene.client, scene.ns, 'ni-0', { cluster: 'noinfra' });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'ni-0',
    'ni-0 waiting for the Cluster infrastructure',
    (m) => v1(m, 'AssociateBMH') === 'False/WaitingForClusterInfrastructure/Info',
    EVENT_MS,
  );
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/WaitingForClusterInfrastructureReady');
  assert.is(v2Message(m3m, 'AssociateBareMetalHost'), 'Waiting for Metal3Cluster Controller to create cluster infrastructure');
  assert.is(m3m.status?.failureReason, undefined);
  assert.is((await consumers(scene.client, scene.ns)).get('ni-0'), undefined, 'no host claimed');
  // Let Cluster API finish with the new objects, so only the readiness change is left.
  await sleep(1_000);

  await m3cs.mergePatchStatus('noinfra', { status: { ready: true } });
  await eventually(
    'the Cluster infrastructure ready',
    async () => ((await scene.client.api(ClusterResource, scene.ns).get('noinfra')).status?.infrastructureReady ? true : undefined),
    EVENT_MS,
  );
  const done = await proceeds('ni-0', 'ni-0 with a host once the Cluster infrastructure is ready');
  assert.is(v1(done, 'AssociateBMH'), 'True//');
  assert.is(scene.controller.errors(), errorsBefore);
});

test("M-11 (changed), M-3: a Machine whose Cluster does not exist is a wait naming the Cluster, not an error loop; the Cluster's creation wakes the machine", async () => {
  // No Cluster, so Cluster API does not adopt the Metal3Machine: the owner reference is set here.
  const machine = await scene.client.api(MachineResource, scene.ns).create(
    newMachine({
      metadata: { name: 'late-0', labels: { [CLUSTER_NAME_LABEL]: 'late' } },
      spec: {
        clusterName: 'late',
        bootstrap: { dataSecretName: BOOTSTRAP_SECRET },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: 'late-0' },
      },
    }),
  );
  const errorsBefore = scene.controller.errors();
  await scene.client.api(Metal3MachineResource, scene.ns).create(
    newMetal3Machine({
      metadata: {
        name: 'late-0',
        labels: { [CLUSTER_NAME_LABEL]: 'late' },
        ownerReferences: [{ apiVersion: MachineResource.apiVersion, kind: 'Machine', name: 'late-0', uid: machine.metadata.uid ?? '', controller: true }],
      },
      spec: { image: IMAGE },
    }),
  );
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'late-0',
    'late-0 waiting for its Cluster',
    (m) => v1(m, 'AssociateBMH') === 'False/WaitingForClusterInfrastructure/Info',
    EVENT_MS,
  );
  assert.ok(v1Message(m3m, 'AssociateBMH').includes('late'), `the condition names the Cluster: ${v1Message(m3m, 'AssociateBMH')}`);
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/WaitingForClusterInfrastructureReady');
  assert.ok(v2Message(m3m, 'AssociateBareMetalHost').includes('late'));
  assert.is(m3m.status?.failureReason, undefined, 'E-6 fixed: no (empty) failure fields');
  assert.is(m3m.status?.failureMessage, undefined);
  await sleep(1_000);
  assert.is(scene.controller.errors(), errorsBefore, 'no error loop');

  await createClusterScene(scene.client, scene.ns, { name: 'late' });
  const woken = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'late-0',
    'late-0 past the wait for its Cluster',
    (m) => !v1Message(m, 'AssociateBMH').includes('Cluster late not found'),
    EVENT_MS,
  );
  assert.is(woken.status?.failureReason, undefined);
  assert.is(scene.controller.errors(), errorsBefore);
});

test('M-11 (changed), M-12: ...and once its Cluster is infrastructure-ready the machine gets a host', async () => {
  const errorsBefore = scene.controller.errors();
  const done = await proceeds('late-0', 'late-0 with a host once its Cluster exists');
  assert.is(v1(done, 'AssociateBMH'), 'True//');
  const host = await hostWhen(scene.client, scene.ns, hostNamed(done), 'the host deployed', (h) => h.spec?.image !== undefined, EVENT_MS);
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], 'late');
  assert.is(scene.controller.errors(), errorsBefore);
});

test.run();
