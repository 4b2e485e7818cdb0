// The Metal3Machine side of the data template flow and of the host spec, against a real apiserver
// with the simulated BMO and the real Cluster API (no workload cluster): the Metal3DataClaim a machine
// creates (M-35, DC-1), waiting for the Metal3Data the template controller would allocate and the
// data controller would render (M-36; no data controller runs here, the test plays both), Secrets
// named in the spec (M-35 steps 1-2), user data resolution (M-20, M-23, E-8), the cleaning mode and
// power kept on the host (N-2, E-9) and customDeploy (M-25). The tests share one namespace and run
// in order; every machine gets its own host.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3DataClaim,
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3Machine,
  Metal3MachineResource,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../src/names.ts';
import {
  BOOTSTRAP_SECRET,
  consumers,
  createMachine,
  createMetal3Data,
  EVENT_MS,
  hostNamed,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  sleep,
  v1,
  v1Message,
  v2,
  v2Message,
  when,
} from './support.ts';

const test = suite('Metal3Machine metadata, user data and host spec');
const scene = machineTestScene(test, {
  prefix: 'machine-metadata',
  world: { workload: false },
  hosts: ['host-0', 'host-1', 'host-2', 'host-3', 'host-4', 'host-5'],
});

/** The host the Metal3Machine's annotation names (M-41), read from the apiserver. */
function hostOf(m3m: Metal3Machine): Promise<BareMetalHost> {
  const value = m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '';
  const [namespace, name] = value.split('/');
  assert.is(namespace, scene.ns, `host annotation ${value}`);
  return scene.client.api(BareMetalHostResource, scene.ns).get(name ?? '');
}

test('M-35 step 5, DC-1: a data template reference gets its namespace defaulted and a Metal3DataClaim named like the machine', async () => {
  await createMachine(scene.client, scene.ns, 'dt-0', { spec: { image: IMAGE, dataTemplate: { name: 'tmpl' } }, labels: { 'example.com/role': 'worker' } });
  const claim = await when(scene.client, Metal3DataClaimResource, scene.ns, 'dt-0', 'the claim dt-0', () => true, EVENT_MS);
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'dt-0',
    'dt-0 with a host and a defaulted template namespace',
    (m) => !!m.metadata.annotations?.[HOST_ANNOTATION] && m.spec?.dataTemplate?.namespace === scene.ns,
    EVENT_MS,
  );

  assert.equal(m3m.spec?.dataTemplate, { name: 'tmpl', namespace: scene.ns }, 'M-35 step 5: namespace defaulted and persisted');
  assert.is(claim.metadata.namespace, scene.ns);
  assert.equal(claim.metadata.labels, m3m.metadata.labels, 'DC-1: labels copied from the Metal3Machine');
  assert.is(claim.metadata.labels?.['example.com/role'], 'worker');
  assert.equal(claim.metadata.finalizers, [METAL3_MACHINE_FINALIZER], 'DC-1: finalizer');
  assert.equal(
    claim.metadata.ownerReferences,
    [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'dt-0', uid: m3m.metadata.uid ?? '', controller: true }],
    'DC-1: controller owner reference to the Metal3Machine',
  );
  assert.equal(claim.spec?.template, { name: 'tmpl', namespace: scene.ns }, 'DC-1: spec.template with the defaulted namespace');
});

test('M-36 steps 1-4, M-5, M-6: the host is claimed but not deployed until the Metal3Data is ready; each step of the data flow wakes the machine', async () => {
  // Step 1: the claim has no renderedData yet.
  let m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'dt-0',
    'dt-0 waiting for its Metal3Data',
    (m) => v1(m, 'Metal3DataReady') === 'False/WaitingForMetal3Data/Info',
    EVENT_MS,
  );
  assert.is(v2(m3m, 'Metal3DataReady'), 'False/WaitingForMetal3Data');
  assert.is(v1Message(m3m, 'Metal3DataReady'), 'Waiting for Metal3DataTemplate to be available');
  assert.is(v2Message(m3m, 'Metal3DataReady'), 'Waiting for Metal3DataTemplate to be available');
  assert.is(v1(m3m, 'AssociateBMH'), 'True//');
  assert.is(v2(m3m, 'AssociateMetal3MachineMetaData'), 'True/AssociateMetal3MachineMetaDataSuccess');
  assert.is(m3m.status?.renderedData, undefined);
  assert.equal(m3m.status?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns }, 'M-23: user data resolved before the data is ready');
  let host = await hostOf(m3m);
  assert.equal(
    host.spec?.consumerRef,
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'dt-0', namespace: scene.ns },
    'the host is claimed',
  );
  assert.is(host.spec?.image, undefined, 'M-36: no deployment while the data is not ready');
  assert.is(host.spec?.customDeploy, undefined);
  assert.is(host.spec?.userData, undefined);
  assert.is(host.spec?.metaData, undefined);
  assert.is(host.spec?.networkData, undefined);
  assert.is(host.spec?.online, true, 'power is kept while waiting');

  // The template controller allocates index 0 (DC-2, DT-14): the claim names its Metal3Data.
  const claim: Metal3DataClaim = await scene.client.api(Metal3DataClaimResource, scene.ns).mergePatchStatus('dt-0', {
    status: { renderedData: { name: 'tmpl-0' } },
  });
  // M-5: the claim's status change wakes the machine (EVENT_MS is far below the safety-net requeue).
  m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'dt-0',
    'dt-0 took the renderedData from the claim',
    (m) => m.status?.renderedData?.name === 'tmpl-0' && v1Message(m, 'Metal3DataReady') === 'Metal3Data is not found, requeuing',
    EVENT_MS,
  );
  assert.equal(m3m.status?.renderedData, { name: 'tmpl-0', namespace: scene.ns }, 'M-36 step 1: renderedData with the machine namespace');
  assert.is(v1(m3m, 'Metal3DataReady'), 'False/WaitingForMetal3Data/Info');

  // ...and creates the Metal3Data (DT-13), not yet rendered: its creation wakes the machine (M-6).
  const data = await createMetal3Data(scene.client, claim, m3m);
  m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'dt-0',
    'dt-0 waiting for the Metal3Data to become ready',
    (m) => v1Message(m, 'Metal3DataReady') === 'Waiting for Metal3Data to become ready',
    EVENT_MS,
  );
  assert.is(v1(m3m, 'Metal3DataReady'), 'False/WaitingForMetal3Data/Info', 'M-36 step 3');
  assert.is(v2(m3m, 'Metal3DataReady'), 'False/WaitingForMetal3Data');
  assert.is(m3m.status?.metaData, undefined);
  host = await hostOf(m3m);
  assert.is(host.spec?.image, undefined, 'still no deployment');

  // The data controller renders the Secrets (D-*): the Metal3Data becomes ready.
  await scene.client.api(Metal3DataResource, scene.ns).mergePatchStatus(data.metadata.name ?? '', { status: { ready: true } });
  m3m = await metal3MachineWhen(scene.client, scene.ns, 'dt-0', 'dt-0 with its data Secrets', (m) => v1(m, 'Metal3DataReady') === 'True//', EVENT_MS);
  assert.is(v2(m3m, 'Metal3DataReady'), 'True/Metal3DataSecretsReady', 'M-36 step 4');
  assert.equal(m3m.status?.renderedData, { name: 'tmpl-0', namespace: scene.ns });
  assert.equal(m3m.status?.metaData, { name: 'dt-0-metadata', namespace: scene.ns });
  assert.equal(m3m.status?.networkData, { name: 'dt-0-networkdata', namespace: scene.ns });
  host = await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host deployed', (h) => h.spec?.image !== undefined, EVENT_MS);
  assert.equal(host.spec?.image, IMAGE, 'M-25');
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
  assert.equal(host.spec?.metaData, { name: 'dt-0-metadata', namespace: scene.ns });
  assert.equal(host.spec?.networkData, { name: 'dt-0-networkdata', namespace: scene.ns });
  assert.is(host.spec?.consumerRef?.name, 'dt-0');

  // The simulated BMO provisions it.
  await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host provisioned', (h) => h.status?.provisioning?.state === 'provisioned', 30_000);
  assert.is(scene.controller.errors(), 0);
});

test('M-35 steps 1-2, M-25: metaData and networkData Secrets named in the spec go to the status and to the host', async () => {
  await createMachine(scene.client, scene.ns, 'sd-0', {
    spec: { image: IMAGE, metaData: { name: 'sd-0-md' }, networkData: { name: 'sd-0-nd', namespace: scene.ns } },
  });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'sd-0',
    'sd-0 with its Secrets in the status',
    (m) => !!m.status?.metaData && !!m.status.networkData && !!m.metadata.annotations?.[HOST_ANNOTATION],
    EVENT_MS,
  );
  assert.equal(m3m.status?.metaData, { name: 'sd-0-md' }, 'M-35 step 1: status.metaData = spec.metaData');
  assert.equal(m3m.status?.networkData, { name: 'sd-0-nd', namespace: scene.ns }, 'M-35 step 2');
  assert.is(m3m.status?.renderedData, undefined);
  const host = await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host deployed', (h) => h.spec?.image !== undefined, EVENT_MS);
  assert.equal(host.spec?.metaData, { name: 'sd-0-md', namespace: scene.ns }, 'M-25: an empty namespace becomes the host namespace');
  assert.equal(host.spec?.networkData, { name: 'sd-0-nd', namespace: scene.ns });
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
  const claims = await scene.client.api(Metal3DataClaimResource, scene.ns).list();
  assert.ok(!claims.items.some((c) => c.metadata.name === 'sd-0'), 'no data template, no claim');
});

test('M-23, E-8: the Machine dataSecretName wins over spec.userData', async () => {
  await createMachine(scene.client, scene.ns, 'ud-0', {
    spec: { image: IMAGE, userData: { name: 'my-user-data', namespace: scene.ns }, automatedCleaningMode: 'metadata' },
  });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'ud-0',
    'ud-0 with user data and a host',
    (m) => !!m.status?.userData && !!m.metadata.annotations?.[HOST_ANNOTATION],
    EVENT_MS,
  );
  assert.equal(m3m.status?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
  const host = await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host deployed', (h) => h.spec?.image !== undefined, EVENT_MS);
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
});

test('M-20: a bootstrap configRef that is not ready blocks association: no host is claimed', async () => {
  const configRef = { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'kc-1' };
  await createMachine(scene.client, scene.ns, 'cr-0', { spec: { image: IMAGE, userData: { name: 'my-user-data' } }, bootstrap: { configRef } });
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'cr-0',
    'cr-0 waiting for bootstrap data',
    (m) => v1(m, 'AssociateBMH') === 'False/WaitingForBootstrapReady/Info',
    EVENT_MS,
  );
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/WaitingForBootstrapData');
  assert.is(v2Message(m3m, 'AssociateBareMetalHost'), 'Waiting for bootstrap data to be ready before proceeding');
  assert.ok(m3m.metadata.finalizers?.includes(METAL3_MACHINE_FINALIZER), 'M-18 runs before the bootstrap guard');
  await sleep(500);
  const again = await scene.client.api(Metal3MachineResource, scene.ns).get('cr-0');
  assert.is(again.metadata.annotations?.[HOST_ANNOTATION], undefined);
  assert.is(again.status?.userData, undefined, 'user data is resolved only once bootstrap is ready');
  assert.is((await consumers(scene.client, scene.ns)).get('cr-0'), undefined, 'no host claimed');
});

test('M-23, E-8: with only a bootstrap configRef, the user data Secret is named like the config', async () => {
  // The KubeadmConfig does not exist: its readiness is set on the Machine by hand, and real Cluster
  // API leaves bootstrapReady and the BootstrapReady condition alone while the config is missing.
  // Real Cluster API itself never shows this state (it writes dataSecretName with bootstrapReady):
  // M-23's fallback to the config's name is upstream's, for Machines written otherwise.
  const machines = scene.client.api(MachineResource, scene.ns);
  const machine = await machines.get('cr-0');
  assert.is(machine.spec?.bootstrap.dataSecretName, undefined);
  const conditions = (machine.status?.conditions ?? []).filter((c) => c.type !== 'BootstrapReady');
  await machines.mergePatchStatus('cr-0', {
    status: {
      bootstrapReady: true,
      conditions: [...conditions, { type: 'BootstrapReady', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
    },
  });
  // The annotation and the status are two writes (main resource, then status): wait for both.
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'cr-0',
    'cr-0 with a host',
    (m) => !!m.metadata.annotations?.[HOST_ANNOTATION] && !!m.status?.userData,
    EVENT_MS,
  );
  assert.equal(m3m.status?.userData, { name: 'kc-1', namespace: scene.ns }, 'E-8: the configRef name, not spec.userData');
  assert.is(v1(m3m, 'AssociateBMH'), 'True//');
  const host = await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host deployed', (h) => h.spec?.image !== undefined, EVENT_MS);
  assert.equal(host.spec?.userData, { name: 'kc-1', namespace: scene.ns });
  const after = await machines.get('cr-0');
  assert.is(after.status?.bootstrapReady, true, 'Cluster API kept the hand-set bootstrap status');
});

test('N-2, E-9: the cleaning mode follows the Metal3Machine after provisioning; power switched off by hand is switched on again', async () => {
  let m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('ud-0');
  const name = hostNamed(m3m);
  let host = await hostWhen(scene.client, scene.ns, name, 'ud-0 host provisioned', (h) => h.status?.provisioning?.state === 'provisioned', 30_000);
  assert.is(host.spec?.automatedCleaningMode, 'metadata');

  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('ud-0', { spec: { automatedCleaningMode: 'disabled' } });
  host = await hostWhen(scene.client, scene.ns, name, 'the new cleaning mode on the host', (h) => h.spec?.automatedCleaningMode === 'disabled', EVENT_MS);
  assert.is(host.spec?.online, true);
  assert.equal(host.spec?.image, IMAGE, 'N-2: nothing but the cleaning mode changes on a provisioned host');

  await scene.client.api(BareMetalHostResource, scene.ns).mergePatch(name, { spec: { online: false } });
  host = await hostWhen(scene.client, scene.ns, name, 'the host powered on again', (h) => h.spec?.online === true, EVENT_MS);
  assert.is(host.spec?.consumerRef?.name, 'ud-0');
  m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('ud-0');
  assert.is(m3m.status?.failureReason, undefined);
});

test('M-25: spec.customDeploy without an image reaches the host as customDeploy', async () => {
  await createMachine(scene.client, scene.ns, 'cd-0', { spec: { customDeploy: { method: 'install_coreos' } } });
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'cd-0', 'cd-0 with a host', (m) => !!m.metadata.annotations?.[HOST_ANNOTATION], EVENT_MS);
  const host = await hostWhen(scene.client, scene.ns, hostNamed(m3m), 'the host with a custom deploy', (h) => h.spec?.customDeploy !== undefined, EVENT_MS);
  assert.equal(host.spec?.customDeploy, { method: 'install_coreos' });
  assert.is(host.spec?.image, undefined);
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
  assert.is(host.spec?.online, true);
  assert.is(scene.controller.errors(), 0);
  assert.equal(scene.controller.problems(), []);
});

test.run();
