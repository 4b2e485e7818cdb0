// Host selection with node reuse (research H-7, H-10, E-32, N-3, N-5, V-10 control-plane rows) and
// hosts being deleted (H-6), end to end through the Metal3Machine controller with the simulated BMO,
// Cluster API core and a workload cluster. A control-plane Machine is one labelled
// `cluster.x-k8s.io/control-plane` and owned by a KubeadmControlPlane; its reuse name is
// `cp-<control plane>`. Every test labels its hosts with its own group and selects on it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import type { RunningSimulators } from '@metal3-ts/test/sim/simulator';
import {
  adminClient,
  createClusterScene,
  createHosts,
  createMachine,
  hostWhen,
  IMAGE,
  metal3MachineWhen,
  settled,
  startMachineController,
  startWorld,
  v1,
  v2,
  type RunningController,
} from './support.ts';

const test = suite('Metal3Machine host selection: node reuse and deleting hosts');
const env = withSharedEnv(test);

const HOST_ANNOTATION = 'metal3.io/BareMetalHost';
const NODE_REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';
const FAILURE_DOMAIN = 'infrastructure.cluster.x-k8s.io/failure-domain';
const HOLD = 'test.metal3-ts.dev/hold';

let client: Client;
let ns = '';
let world: RunningSimulators;
let controller: RunningController;

test.before(async () => {
  client = adminClient(env());
  ns = await freshNamespace(env().admin.client, 'machine-reuse');
  world = await startWorld(env(), ns);
  await createClusterScene(client, ns);
  controller = await startMachineController(env(), ns);
});

test.after(async () => {
  await controller?.stop();
  await world?.stop();
  client?.transport.close();
});

async function availableHosts(hosts: Record<string, Record<string, string>>): Promise<void> {
  for (const [name, labels] of Object.entries(hosts)) await createHosts(client, ns, [name], { labels });
  await Promise.all(Object.keys(hosts).map((name) => hostWhen(client, ns, name, `${name} available`, (h) => h.status?.provisioning?.state === 'available', 30_000)));
}

/** A control-plane Metal3Machine and Machine of KubeadmControlPlane `kcp` (N-3: reuse name `cp-<kcp>`). */
function controlPlaneMachine(name: string, kcp: string, group: string, failureDomain?: string) {
  return createMachine(client, ns, name, {
    spec: { image: IMAGE, hostSelector: { matchLabels: { group } } },
    labels: { 'cluster.x-k8s.io/control-plane': '' },
    machineOwners: [{ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: kcp, uid: `uid-of-${kcp}`, controller: true }],
    ...(failureDomain ? { failureDomain } : {}),
  });
}

function workerMachine(name: string, group: string) {
  return createMachine(client, ns, name, { spec: { image: IMAGE, hostSelector: { matchLabels: { group } } } });
}

async function hostOf(name: string, timeoutMs = 30_000): Promise<string> {
  const m3m = await metal3MachineWhen(client, ns, name, `${name} associated`, (m) => !!m.metadata.annotations?.[HOST_ANNOTATION], timeoutMs);
  return (m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '').replace(`${ns}/`, '');
}

/** The machine once it waits for a host, with the v1beta1 AssociateBMH message. */
async function waitingFor(name: string): Promise<string> {
  const m3m = await metal3MachineWhen(client, ns, name, `${name} waiting`, (m) => getCondition(m, 'AssociateBMH')?.reason === 'AssociateBMHFailed');
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Info', `${name}: a wait, not an error`);
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed', name);
  const text = getCondition(m3m, 'AssociateBMH')?.message ?? '';
  assert.is(getV1Beta2Condition(m3m, 'AssociateBareMetalHost')?.message, text, name);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined, `${name}: no host`);
  return text;
}

async function consumerOf(host: string): Promise<string | undefined> {
  return (await client.api(BareMetalHostResource, ns).get(host)).spec?.consumerRef?.name;
}

test('H-7, H-10, E-32, N-5, V-10: a control-plane machine takes the last host reserved for it over free hosts and its failure domain; workers and other control planes never take reserved hosts', async () => {
  const errors = controller.errors();
  await availableHosts({
    'nr-free': { group: 'nr' },
    'nr-free-fd': { group: 'nr', [FAILURE_DOMAIN]: 'fd-1' },
    'nr-reuse-1': { group: 'nr', [NODE_REUSE]: 'cp-kcp-a' },
    'nr-reuse-2': { group: 'nr', [NODE_REUSE]: 'cp-kcp-a' },
    'nr-reuse-b': { group: 'nr', [NODE_REUSE]: 'cp-kcp-b' },
  });
  await controlPlaneMachine('cp-a', 'kcp-a', 'nr', 'fd-1');
  assert.is(await hostOf('cp-a'), 'nr-reuse-2', 'the last reserved host in name order wins (E-32), failure domain ignored');
  const taken = await hostWhen(client, ns, 'nr-reuse-2', 'nr-reuse-2 claimed', (h) => !!h.spec?.consumerRef);
  assert.is(taken.metadata.labels?.[NODE_REUSE], undefined, 'the reservation is removed by the claim (H-13)');

  // Workers (no reuse name) take the two free hosts and then wait: reserved hosts are not theirs (H-6).
  await workerMachine('w-1', 'nr');
  await workerMachine('w-2', 'nr');
  assert.equal([await hostOf('w-1'), await hostOf('w-2')].sort(), ['nr-free', 'nr-free-fd']);
  await workerMachine('w-3', 'nr');
  assert.match(await waitingFor('w-3'), /No available host found: waiting for an available BareMetalHost matching group=nr/);
  // Another control plane (N-5): neither kcp-a's nor kcp-b's reservation is its own.
  await controlPlaneMachine('cp-c', 'kcp-c', 'nr');
  assert.match(await waitingFor('cp-c'), /No available host found/);
  await settled(controller, 0);
  assert.is(await consumerOf('nr-reuse-1'), undefined);
  assert.is(await consumerOf('nr-reuse-b'), undefined);
  assert.is(controller.errors(), errors);
});

test('H-10, E-32, V-10: a reserved host not available yet makes the control-plane machine wait for it, though a free host is there; once available it is taken', async () => {
  await availableHosts({ 'nrp-free': { group: 'nrp' } });
  // Externally provisioned: registered, no error, but not available.
  await createHosts(client, ns, ['nrp-reuse'], { labels: { group: 'nrp', [NODE_REUSE]: 'cp-kcp-p' }, spec: { externallyProvisioned: true } });
  await hostWhen(client, ns, 'nrp-reuse', 'nrp-reuse externally provisioned', (h) => h.status?.provisioning?.state === 'externally provisioned' && !h.status.errorMessage);
  await controlPlaneMachine('cp-p', 'kcp-p', 'nrp');
  const text = await waitingFor('cp-p');
  assert.ok(text.includes(`${ns}/nrp-reuse`), `the message names the reserved host: ${text}`);
  assert.match(text, /nodeReuseLabelName in not-available state.*externally provisioned/);
  await settled(controller, 0);
  assert.is(await consumerOf('nrp-free'), undefined, 'the free host is not taken instead');

  // BMO inspects and prepares it; its events wake the machine (safety net: 120 s).
  await client.api(BareMetalHostResource, ns).mergePatch('nrp-reuse', { spec: { externallyProvisioned: false } });
  assert.is(await hostOf('cp-p', 20_000), 'nrp-reuse');
  assert.is(await consumerOf('nrp-free'), undefined);
});

test('H-6: a host being deleted is never chosen, not even one reserved for the machine (which it would otherwise wait for)', async () => {
  await availableHosts({ 'nrd-free': { group: 'nrd' } });
  const { host, secret } = simulatedHost('nrd-deleting', { namespace: ns, labels: { group: 'nrd', [NODE_REUSE]: 'cp-kcp-d' } });
  host.metadata.finalizers = [HOLD];
  await client.api(SecretResource, ns).create(secret);
  await client.api(BareMetalHostResource, ns).create(host);
  await hostWhen(client, ns, 'nrd-deleting', 'nrd-deleting available', (h) => h.status?.provisioning?.state === 'available', 30_000);
  await client.api(BareMetalHostResource, ns).delete('nrd-deleting');
  // BMO runs the deletion to its end and lets go; our finalizer keeps the host, deletionTimestamp set.
  const deleting = await hostWhen(client, ns, 'nrd-deleting', 'nrd-deleting released by BMO', (h) => !!h.metadata.deletionTimestamp && (h.metadata.finalizers ?? []).join() === HOLD);
  assert.is(deleting.status?.errorMessage ?? '', '', 'no error: only the deletion excludes it');

  await controlPlaneMachine('cp-d', 'kcp-d', 'nrd');
  assert.is(await hostOf('cp-d'), 'nrd-free');
  assert.is(await consumerOf('nrd-deleting'), undefined);
  await client.api(BareMetalHostResource, ns).mergePatch('nrd-deleting', { metadata: { finalizers: null } });
});

test.run();
