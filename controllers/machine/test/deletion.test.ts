// Deletion of a Metal3Machine releasing its host (research section 4, X-1…X-16, seed 002) against a
// real apiserver, without a workload cluster: machines are associated and their hosts provisioned,
// never ready, which deletion does not need. Changed from upstream and checked here: deletion needs
// neither the owner Machine nor the Cluster (E-12), the user-data Secret is never deleted,
// data-template Secrets are removed from the host (E-25), a host whose consumerRef names the machine
// is released without the host annotation, a stale owner reference on a host held by someone
// else is removed (E-19). The reuse label a released host may get (X-10, N-3…N-7) is checked in
// deletion-reuse.test.ts. Every test selects hosts by its own `group` label. The first tests run with
// the simulated BMO (instant) and the real Cluster API; the last two replace the BMO by one in BMO
// test-mode timings (deprovisioning 1.5 s), with the Machines' ownership written by hand; E-12's
// Machine is paused for Cluster API (`cluster.x-k8s.io/paused`) and its finalizer removed by hand, as
// a forced deletion leaves it, so that it can disappear before its Metal3Machine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterResource, MachineResource, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3Machine,
  Metal3MachineResource,
  type Metal3MachineSpec,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { bmoSimulator } from '@metal3-ts/test/sim/bmo/index';
import { simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../src/names.ts';
import { availableHosts, deleteMachine, hostApi, provisionedHost, releasedHost, selector } from './scene-helpers.ts';
import {
  BOOTSTRAP_SECRET,
  CAPI_PAUSED_ANNOTATION,
  CLUSTER,
  consumers,
  createClusterScene,
  createMachine,
  createMetal3Data,
  EVENT_MS,
  gone,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  sleep,
  v1,
  v2,
  when,
} from './support.ts';

const M3M_API = 'infrastructure.cluster.x-k8s.io/v1beta1';

const test = suite('Metal3Machine deletion (X-1…X-16)');
const scene = machineTestScene(test, { prefix: 'machine-deletion', world: { workload: false } });

test('X-6 table, B2-14: fast track "true" keeps a released host with cleaning metadata powered on; automatedCleaningMode disabled powers it off, with fast track "true" or not; disablePowerOff keeps it on', async () => {
  const nsFT = await freshNamespace(scene.env.admin.client, 'machine-fasttrack');
  await createClusterScene(scene.client, nsFT);
  const fastTrack = await scene.startController(nsFT, { fastTrack: 'true' });
  const rows = [
    { namespace: nsFT, name: 'ft-meta', cleaning: 'metadata', online: true },
    { namespace: nsFT, name: 'ft-off', cleaning: 'disabled', online: false },
    { namespace: scene.ns, name: 'x6-off', cleaning: 'disabled', online: false },
    { namespace: scene.ns, name: 'x6-meta', cleaning: 'metadata', online: false },
    { namespace: scene.ns, name: 'x6-keep-on', cleaning: 'disabled', online: true, disablePowerOff: true },
  ] as const;
  await Promise.all(rows.map((row) => availableHosts(scene, row.name, [`${row.name}-h`], { namespace: row.namespace })));
  for (const row of rows) {
    if ('disablePowerOff' in row) await hostApi(scene, row.namespace).mergePatch(`${row.name}-h`, { spec: { disablePowerOff: true } });
  }
  await Promise.all(
    rows.map((row) =>
      createMachine(scene.client, row.namespace, row.name, { spec: { image: IMAGE, automatedCleaningMode: row.cleaning, ...selector(row.name) } })
    ),
  );
  await Promise.all(rows.map((row) => provisionedHost(scene, row.name, row.namespace)));
  for (const row of rows) {
    const host = await hostApi(scene, row.namespace).get(`${row.name}-h`);
    assert.is(host.spec?.automatedCleaningMode, row.cleaning, `${row.name}: M-25 cleaning mode on the host`);
    assert.is(host.spec?.online, true);
  }

  await Promise.all(rows.map((row) => deleteMachine(scene, row.name, row.namespace)));
  for (const row of rows) {
    const host = await releasedHost(scene, `${row.name}-h`, row.namespace);
    const fast = row.namespace === nsFT ? '"true"' : 'unset';
    const power = 'disablePowerOff' in row ? ', disablePowerOff' : '';
    assert.is(host.spec?.online, row.online, `X-6: cleaning ${row.cleaning}, fast track ${fast}${power} ⇒ online ${row.online}`);
    assert.is(host.status?.poweredOn, row.online, `${row.name}: BMO followed spec.online`);
    assert.is(host.spec?.image, undefined, `${row.name}: X-5`);
    assert.is(host.spec?.userData, undefined, `${row.name}: X-5`);
    assert.is(host.metadata.ownerReferences, undefined, `${row.name}: X-13`);
  }
  assert.is(fastTrack.errors(), 0);
  await fastTrack.stop();
});

test('X-2, DC-4, E-25 (changed), X-12 (changed): the Metal3DataClaim loses our finalizer and is deleted; data-template Secrets leave the host with the deployment; the user-data Secret stays', async () => {
  await availableHosts(scene, 'dt', ['dt-h']);
  await createMachine(scene.client, scene.ns, 'dt-0', { spec: { image: IMAGE, dataTemplate: { name: 'tmpl' }, ...selector('dt') } });
  const claim = await when(scene.client, Metal3DataClaimResource, scene.ns, 'dt-0', 'the claim dt-0', () => true, EVENT_MS);
  assert.equal(claim.metadata.finalizers, [METAL3_MACHINE_FINALIZER], 'DC-1');
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'dt-0', 'dt-0 with a host', (m) => !!m.metadata.annotations?.[HOST_ANNOTATION], EVENT_MS);
  // No template or data controller runs here: the test plays both (DT-13, D-*).
  await scene.client.api(Metal3DataClaimResource, scene.ns).mergePatchStatus('dt-0', { status: { renderedData: { name: 'tmpl-0' } } });
  const data = await createMetal3Data(scene.client, claim, m3m);
  await scene.client.api(Metal3DataResource, scene.ns).mergePatchStatus(data.metadata.name ?? '', { status: { ready: true } });
  const hostName = await provisionedHost(scene, 'dt-0');
  let host = await hostApi(scene).get(hostName);
  assert.equal(host.spec?.metaData, { name: 'dt-0-metadata', namespace: scene.ns });
  assert.equal(host.spec?.networkData, { name: 'dt-0-networkdata', namespace: scene.ns });
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });

  await deleteMachine(scene, 'dt-0');
  await gone(scene.client, Metal3DataClaimResource, scene.ns, 'dt-0', EVENT_MS);
  host = await releasedHost(scene, hostName);
  assert.is(host.spec?.image, undefined, 'X-5');
  assert.is(host.spec?.userData, undefined, 'X-5: status.userData was set');
  assert.is(host.spec?.metaData, undefined, 'E-25 (changed): metaData from the data template is cleared');
  assert.is(host.spec?.networkData, undefined, 'E-25 (changed): networkData from the data template is cleared');
  const bootstrap = await scene.client.api(SecretResource, scene.ns).get(BOOTSTRAP_SECRET);
  assert.is(bootstrap.metadata.deletionTimestamp, undefined, 'X-12: the bootstrap data Secret is left alone');
});

test('X-12 (changed): with only a bootstrap configRef (no dataSecretName), the user-data Secret named like the config is neither emptied of finalizers nor deleted', async () => {
  await availableHosts(scene, 'x12', ['x12-h']);
  await scene.client.api(SecretResource, scene.ns).create(
    newSecret({
      metadata: { name: 'kc-x12', finalizers: ['example.com/keep'], labels: { [CLUSTER_NAME_LABEL]: CLUSTER } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: '#cloud-config\n', format: 'cloud-config' },
    }),
  );
  const configRef = { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'kc-x12' };
  await createMachine(scene.client, scene.ns, 'x12-0', { spec: { image: IMAGE, ...selector('x12') }, bootstrap: { configRef } });
  // No bootstrap provider runs: its readiness is set on the Machine by hand, as CAPI would mirror it.
  const machine = await when(scene.client, MachineResource, scene.ns, 'x12-0', 'the Machine x12-0 adopted', (m) => !!m.metadata.finalizers?.length, EVENT_MS);
  const conditions = (machine.status?.conditions ?? []).filter((c) => c.type !== 'BootstrapReady');
  await scene.client.api(MachineResource, scene.ns).mergePatchStatus('x12-0', {
    status: {
      bootstrapReady: true,
      conditions: [...conditions, { type: 'BootstrapReady', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
    },
  });
  const hostName = await provisionedHost(scene, 'x12-0');
  // The host is written before the pass's one status patch, and BMO may provision it first.
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'x12-0', 'x12-0 with status.userData', (m) => !!m.status?.userData, EVENT_MS);
  assert.equal(m3m.status?.userData, { name: 'kc-x12', namespace: scene.ns }, 'E-8');
  assert.is(
    (await scene.client.api(MachineResource, scene.ns).get('x12-0')).spec?.bootstrap.dataSecretName,
    undefined,
    'the case where upstream deletes the Secret',
  );

  await deleteMachine(scene, 'x12-0');
  const host = await releasedHost(scene, hostName);
  assert.is(host.spec?.userData, undefined, 'X-5');
  const secret = await scene.client.api(SecretResource, scene.ns).get('kc-x12');
  assert.is(secret.metadata.deletionTimestamp, undefined, 'X-12 (changed): not deleted');
  assert.equal(secret.metadata.finalizers, ['example.com/keep'], 'X-12 (changed): finalizers untouched');
  await scene.client.api(SecretResource, scene.ns).mergePatch('kc-x12', { metadata: { finalizers: null } });
});

test('X-3 (changed, crash safety): a host whose consumerRef names the machine, with no host annotation on the machine, is deprovisioned and released on deletion', async () => {
  await availableHosts(scene, 'cs', ['cs-h']);
  // A machine that crashed between claiming its host and recording it: paused here so the controller
  // does not finish the association meanwhile, with our finalizer as the claim would have added it.
  const m3m = await scene.client.api(Metal3MachineResource, scene.ns).create(
    newMetal3Machine({
      metadata: {
        name: 'cs-0',
        labels: { [CLUSTER_NAME_LABEL]: CLUSTER },
        annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' },
        finalizers: [METAL3_MACHINE_FINALIZER],
      },
      spec: { image: IMAGE, ...selector('cs') },
    }),
  );
  await hostApi(scene).mergePatch('cs-h', {
    metadata: {
      labels: { [CLUSTER_NAME_LABEL]: CLUSTER },
      ownerReferences: [{ apiVersion: M3M_API, kind: 'Metal3Machine', name: 'cs-0', uid: m3m.metadata.uid ?? '', controller: true }],
    },
    spec: { consumerRef: { apiVersion: M3M_API, kind: 'Metal3Machine', name: 'cs-0', namespace: scene.ns }, image: IMAGE, online: true },
  });
  await hostWhen(scene.client, scene.ns, 'cs-h', 'cs-h provisioned', (h) => h.status?.provisioning?.state === 'provisioned', 30_000);

  await scene.client.api(Metal3MachineResource, scene.ns).delete('cs-0');
  await sleep(500);
  const held = await scene.client.api(Metal3MachineResource, scene.ns).get('cs-0');
  assert.ok(held.metadata.deletionTimestamp && held.metadata.finalizers?.includes(METAL3_MACHINE_FINALIZER), 'M-16: paused, so the deletion waits');
  assert.is(held.metadata.annotations?.[HOST_ANNOTATION], undefined, 'the machine does not know its host');
  assert.is((await hostApi(scene).get('cs-h')).spec?.consumerRef?.name, 'cs-0');

  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('cs-0', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: null } } });
  await gone(scene.client, Metal3MachineResource, scene.ns, 'cs-0', EVENT_MS);
  const host = await releasedHost(scene, 'cs-h');
  assert.is(host.spec?.image, undefined, 'X-5: deprovisioned first');
  assert.is(host.metadata.ownerReferences, undefined, 'X-13');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], undefined, 'X-14');
  assert.is((await consumers(scene.client, scene.ns)).get('cs-0'), undefined);
});

/** A host provisioned for `machine`, then given to `other` by someone else (a restore, a hand edit), our owner reference left behind. */
async function hostTakenFrom(machine: string, group: string, other: string, before?: () => Promise<void>) {
  const hostName = `${group}-h`;
  await availableHosts(scene, group, [hostName]);
  await createMachine(scene.client, scene.ns, machine, { spec: { image: IMAGE, ...selector(group) } });
  assert.is(await provisionedHost(scene, machine), hostName);
  await before?.();
  const ours = (await hostApi(scene).get(hostName)).metadata.ownerReferences ?? [];
  assert.equal(ours.map((r) => [r.name, r.controller]), [[machine, true]]);
  const theirs = { apiVersion: M3M_API, kind: 'Metal3Machine', name: other, uid: `uid-of-${other}` };
  await hostApi(scene).mergePatch(hostName, {
    metadata: { ownerReferences: [...ours, theirs] },
    spec: { consumerRef: { apiVersion: M3M_API, kind: 'Metal3Machine', name: other, namespace: scene.ns } },
  });
  return { hostName, theirs };
}

/** The other machine's claim on the host is intact and the host was not deprovisioned. */
function assertTheirs(host: BareMetalHost, other: string, theirs: object): void {
  assert.equal(host.metadata.ownerReferences, [theirs], 'E-19 (changed): only our owner reference is removed');
  assert.equal(host.spec?.consumerRef, { apiVersion: M3M_API, kind: 'Metal3Machine', name: other, namespace: scene.ns }, `the claim of ${other} is intact`);
  assert.equal(host.spec?.image, IMAGE, 'not deprovisioned');
  assert.is(host.spec?.online, true);
  assert.is(host.status?.provisioning?.state, 'provisioned');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], CLUSTER);
}

test("E-19 (changed), X-3.4: deleting a machine whose annotated host is consumed by another machine removes only the stale owner reference to it; the other machine's claim and deployment stay", async () => {
  // Paused while the host changes hands, so the deletion flow is what meets the taken host (still annotated).
  const { hostName, theirs } = await hostTakenFrom('e19-a', 'e19', 'e19-b', async () => {
    await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('e19-a', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' } } });
    await metal3MachineWhen(scene.client, scene.ns, 'e19-a', 'e19-a paused', (m) => v2(m, 'Paused') === 'True/Paused', EVENT_MS);
  });
  await scene.client.api(Metal3MachineResource, scene.ns).delete('e19-a');
  await sleep(300);
  const held = await scene.client.api(Metal3MachineResource, scene.ns).get('e19-a');
  assert.is(held.metadata.annotations?.[HOST_ANNOTATION], `${scene.ns}/${hostName}`, 'the deletion starts from the annotated host');
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('e19-a', { metadata: { annotations: { [CAPI_PAUSED_ANNOTATION]: null } } });
  await gone(scene.client, Metal3MachineResource, scene.ns, 'e19-a', EVENT_MS);

  const host = await hostWhen(
    scene.client,
    scene.ns,
    hostName,
    `${hostName} without the stale owner reference`,
    (h) => !(h.metadata.ownerReferences ?? []).some((r) => r.name === 'e19-a'),
    EVENT_MS,
  );
  assertTheirs(host, 'e19-b', theirs);
});

// A running machine that finds its recorded host taken by another consumer forgets the record and
// takes its owner reference off that host at once; a deletion that began meanwhile keeps the record.
test('E-19 (changed): a machine that found its host taken by another machine, then is deleted, leaves no owner reference on that host', async () => {
  const { hostName, theirs } = await hostTakenFrom('e19s-a', 'e19s', 'e19s-b');
  // The running machine sees the host taken (M-40 record of a taken host: forgotten, choose again).
  await metal3MachineWhen(scene.client, scene.ns, 'e19s-a', 'e19s-a forgot the taken host', (m) => !m.metadata.annotations?.[HOST_ANNOTATION], EVENT_MS);
  await deleteMachine(scene, 'e19s-a');
  await sleep(500);
  const host = await hostApi(scene).get(hostName);
  assert.equal(
    (host.metadata.ownerReferences ?? []).map((r) => r.name),
    ['e19s-b'],
    `no owner reference to the deleted e19s-a may stay on ${hostName} (it is controller: true and names a deleted object)`,
  );
  assertTheirs(host, 'e19s-b', theirs);
});

// From here on: a BMO in test-mode timings.

/**
 * A Machine of `cluster` and its Metal3Machine, owned by it from the start; `paused`: the Machine
 * carries Cluster API's pause annotation, so Cluster API only puts its finalizer on it.
 */
async function ownedMachine(name: string, cluster: string, spec: Metal3MachineSpec, paused = false): Promise<Metal3Machine> {
  const labels = { [CLUSTER_NAME_LABEL]: cluster };
  const machine = await scene.client.api(MachineResource, scene.ns).create(
    newMachine({
      metadata: { name, labels, ...(paused ? { annotations: { [CAPI_PAUSED_ANNOTATION]: 'true' } } : {}) },
      spec: { clusterName: cluster, bootstrap: { dataSecretName: BOOTSTRAP_SECRET }, infrastructureRef: { apiVersion: M3M_API, kind: 'Metal3Machine', name } },
    }),
  );
  return scene.client.api(Metal3MachineResource, scene.ns).create(
    newMetal3Machine({
      metadata: {
        name,
        labels,
        ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name, uid: machine.metadata.uid ?? '', controller: true }],
      },
      spec,
    }),
  );
}

test('E-12 (changed): a Metal3Machine whose Machine, Cluster and Metal3Cluster are gone still deprovisions and releases its host, then loses its finalizer', async () => {
  await scene.world.stop();
  const deps = simulatorDeps(scene.env.admin);
  scene.world = await startSimulators(
    deps,
    bmoSimulator(deps, { speed: 'bmoTestMode', timings: { inspectionMs: 0, provisioningMs: 200, deprovisioningMs: 1_500 } }),
  );

  await createClusterScene(scene.client, scene.ns, { name: 'e12' });
  await availableHosts(scene, 'e12', ['e12-h']);
  await ownedMachine('e12-0', 'e12', { image: IMAGE, ...selector('e12') }, true);
  assert.is(await provisionedHost(scene, 'e12-0'), 'e12-h');
  assert.is((await scene.client.api(SecretResource, scene.ns).get('e12-h-bmc-secret')).metadata.labels?.[CLUSTER_NAME_LABEL], 'e12', 'M-26');

  // The Machine goes first, by force (Cluster API, told to pause it, would delete the Metal3Machine
  // first and wait for it); then Cluster API deletes the Cluster and its Metal3Cluster.
  await when(scene.client, MachineResource, scene.ns, 'e12-0', 'the Machine with the Cluster API finalizer', (m) => !!m.metadata.finalizers?.length, EVENT_MS);
  await scene.client.api(MachineResource, scene.ns).delete('e12-0');
  await scene.client.api(MachineResource, scene.ns).mergePatch('e12-0', { metadata: { finalizers: null } });
  await gone(scene.client, MachineResource, scene.ns, 'e12-0', EVENT_MS);
  await scene.client.api(ClusterResource, scene.ns).delete('e12');
  await gone(scene.client, ClusterResource, scene.ns, 'e12', EVENT_MS);
  await gone(scene.client, Metal3ClusterResource, scene.ns, 'e12', EVENT_MS);
  assert.ok(await scene.client.api(Metal3MachineResource, scene.ns).get('e12-0'), 'the Metal3Machine outlived them');
  await sleep(300); // the controller's informers see them go

  await deleteMachine(scene, 'e12-0');
  const host = await releasedHost(scene, 'e12-h');
  assert.is(host.spec?.image, undefined, 'X-5');
  assert.is(host.metadata.ownerReferences, undefined, 'X-13');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], undefined, "X-14: the Metal3Machine's own cluster label names the cluster");
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], undefined);
  const bmc = await scene.client.api(SecretResource, scene.ns).get('e12-h-bmc-secret');
  assert.is(bmc.metadata.labels?.[CLUSTER_NAME_LABEL], undefined, 'X-4');
});

test('X-1, X-7, X-8: while BMO deprovisions the host the finalizer stays and the claim holds; the end of deprovisioning wakes the controller (no 120 s safety net)', async () => {
  await availableHosts(scene, 'x8', ['x8-h']);
  await ownedMachine('x8-0', CLUSTER, { image: IMAGE, ...selector('x8') });
  assert.is(await provisionedHost(scene, 'x8-0'), 'x8-h');

  const start = performance.now();
  await scene.client.api(Metal3MachineResource, scene.ns).delete('x8-0');
  const deprovisioning = await hostWhen(
    scene.client,
    scene.ns,
    'x8-h',
    'x8-h deprovisioning',
    (h) => h.status?.provisioning?.state === 'deprovisioning',
    EVENT_MS,
  );
  assert.is(deprovisioning.spec?.image, undefined, 'X-5, X-7: the deployment is removed first');
  assert.is(deprovisioning.spec?.online, false, 'X-6: fast track unset');
  assert.is(deprovisioning.spec?.consumerRef?.name, 'x8-0', 'X-8: still claimed while deprovisioning');
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'x8-0', 'x8-0 deleting', (m) => v1(m, 'KubernetesNodeReady') === 'False/Deleting/Info', EVENT_MS);
  assert.ok(m3m.metadata.deletionTimestamp);
  assert.equal(m3m.metadata.finalizers, [METAL3_MACHINE_FINALIZER], 'X-8: the finalizer stays while the host deprovisions');
  assert.is(v2(m3m, 'AssociateMetal3MachineMetaData'), 'False/Deleting', 'X-1');
  const still: BareMetalHost = await hostApi(scene).get('x8-h');
  if (still.status?.provisioning?.state === 'deprovisioning') {
    const again = await scene.client.api(Metal3MachineResource, scene.ns).get('x8-0');
    assert.equal(again.metadata.finalizers, [METAL3_MACHINE_FINALIZER], 'X-8: still there later in deprovisioning');
  }

  await gone(scene.client, Metal3MachineResource, scene.ns, 'x8-0', EVENT_MS);
  const elapsed = performance.now() - start;
  assert.ok(elapsed >= 1_400, `deprovisioning took its 1.5 s (${Math.round(elapsed)} ms)`);
  assert.ok(elapsed < EVENT_MS, `released ${Math.round(elapsed)} ms after the delete: woken by the host's state change`);
  const host = await releasedHost(scene, 'x8-h');
  assert.is(host.metadata.ownerReferences, undefined);
  assert.is((await consumers(scene.client, scene.ns)).get('x8-0'), undefined);
  assert.equal(scene.controller.problems().filter((line) => /forbidden/i.test(line)), [], 'deploy/rbac.yaml covers deletion');
});

test.run();
