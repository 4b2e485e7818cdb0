// Host selection with node reuse (research H-7, H-10, E-32, N-3, N-5, V-10 control-plane rows) and
// hosts being deleted (H-6), end to end through the Metal3Machine controller with the simulated BMO,
// the real Cluster API and a workload cluster. A control-plane Machine is one labelled
// `cluster.x-k8s.io/control-plane` and owned by a KubeadmControlPlane; its reuse name is
// `cp-<control plane>`. Every test labels its hosts with its own group and selects on it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { FAILURE_DOMAIN_LABEL, NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { HOST_ANNOTATION } from '../src/names.ts';
import {
  associatedHost,
  consumerOf as hostConsumer,
  createAvailableHosts,
  createHosts,
  createMachine,
  HOLD_FINALIZER,
  type HostList,
  hostWhen,
  IMAGE,
  machineTestScene,
  metal3MachineWhen,
  settled,
  v1,
  v2,
} from './support.ts';

const test = suite('Metal3Machine host selection: node reuse and deleting hosts');
const scene = machineTestScene(test, { prefix: 'machine-reuse' });

const availableHosts = (hosts: HostList) => createAvailableHosts(scene.client, scene.ns, hosts);
const hostOf = (name: string, timeoutMs?: number) => associatedHost(scene.client, scene.ns, name, timeoutMs);
const consumerOf = (host: string) => hostConsumer(scene.client, scene.ns, host);

/** A control-plane Metal3Machine and Machine of KubeadmControlPlane `kcp` (N-3: reuse name `cp-<kcp>`). */
function controlPlaneMachine(name: string, kcp: string, group: string, failureDomain?: string) {
  return createMachine(scene.client, scene.ns, name, {
    spec: { image: IMAGE, hostSelector: { matchLabels: { group } } },
    labels: { 'cluster.x-k8s.io/control-plane': '' },
    machineOwners: [{ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: kcp, uid: `uid-of-${kcp}`, controller: true }],
    ...(failureDomain ? { failureDomain } : {}),
  });
}

function workerMachine(name: string, group: string) {
  return createMachine(scene.client, scene.ns, name, { spec: { image: IMAGE, hostSelector: { matchLabels: { group } } } });
}

/** The machine once it waits for a host, with the v1beta1 AssociateBMH message. */
async function waitingFor(name: string): Promise<string> {
  const m3m = await metal3MachineWhen(scene.client, scene.ns, name, `${name} waiting`, (m) => getCondition(m, 'AssociateBMH')?.reason === 'AssociateBMHFailed');
  assert.is(v1(m3m, 'AssociateBMH'), 'False/AssociateBMHFailed/Info', `${name}: a wait, not an error`);
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed', name);
  const text = getCondition(m3m, 'AssociateBMH')?.message ?? '';
  assert.is(getV1Beta2Condition(m3m, 'AssociateBareMetalHost')?.message, text, name);
  assert.is(m3m.metadata.annotations?.[HOST_ANNOTATION], undefined, `${name}: no host`);
  return text;
}

test('H-7, H-10, E-32, N-5, V-10: a control-plane machine takes the last host reserved for it over free hosts and its failure domain; workers and other control planes never take reserved hosts', async () => {
  const errors = scene.controller.errors();
  await availableHosts({
    'nr-free': { group: 'nr' },
    'nr-free-fd': { group: 'nr', [FAILURE_DOMAIN_LABEL]: 'fd-1' },
    'nr-reuse-1': { group: 'nr', [NODE_REUSE_LABEL]: 'cp-kcp-a' },
    'nr-reuse-2': { group: 'nr', [NODE_REUSE_LABEL]: 'cp-kcp-a' },
    'nr-reuse-b': { group: 'nr', [NODE_REUSE_LABEL]: 'cp-kcp-b' },
  });
  await controlPlaneMachine('cp-a', 'kcp-a', 'nr', 'fd-1');
  assert.is(await hostOf('cp-a'), 'nr-reuse-2', 'the last reserved host in name order wins (E-32), failure domain ignored');
  const taken = await hostWhen(scene.client, scene.ns, 'nr-reuse-2', 'nr-reuse-2 claimed', (h) => !!h.spec?.consumerRef);
  assert.is(taken.metadata.labels?.[NODE_REUSE_LABEL], undefined, 'the reservation is removed by the claim (H-13)');

  // Workers (no reuse name) take the two free hosts and then wait: reserved hosts are not theirs (H-6).
  await workerMachine('w-1', 'nr');
  await workerMachine('w-2', 'nr');
  assert.equal([await hostOf('w-1'), await hostOf('w-2')].sort(), ['nr-free', 'nr-free-fd']);
  await workerMachine('w-3', 'nr');
  assert.match(await waitingFor('w-3'), /No available host found: waiting for an available BareMetalHost matching group=nr/);
  // Another control plane (N-5): neither kcp-a's nor kcp-b's reservation is its own.
  await controlPlaneMachine('cp-c', 'kcp-c', 'nr');
  assert.match(await waitingFor('cp-c'), /No available host found/);
  await settled(scene.controller, 0);
  assert.is(await consumerOf('nr-reuse-1'), undefined);
  assert.is(await consumerOf('nr-reuse-b'), undefined);
  assert.is(scene.controller.errors(), errors);
});

test('H-10, E-32, V-10: a reserved host not available yet makes the control-plane machine wait for it, though a free host is there; once available it is taken', async () => {
  await availableHosts({ 'nrp-free': { group: 'nrp' } });
  // Externally provisioned: registered, no error, but not available.
  await createHosts(scene.client, scene.ns, ['nrp-reuse'], { labels: { group: 'nrp', [NODE_REUSE_LABEL]: 'cp-kcp-p' }, spec: { externallyProvisioned: true } });
  await hostWhen(
    scene.client,
    scene.ns,
    'nrp-reuse',
    'nrp-reuse externally provisioned',
    (h) => h.status?.provisioning?.state === 'externally provisioned' && !h.status.errorMessage,
  );
  await controlPlaneMachine('cp-p', 'kcp-p', 'nrp');
  const text = await waitingFor('cp-p');
  assert.ok(text.includes(`${scene.ns}/nrp-reuse`), `the message names the reserved host: ${text}`);
  assert.match(text, /nodeReuseLabelName in not-available state.*externally provisioned/);
  await settled(scene.controller, 0);
  assert.is(await consumerOf('nrp-free'), undefined, 'the free host is not taken instead');

  // BMO inspects and prepares it; its events wake the machine (safety net: 120 s).
  await scene.client.api(BareMetalHostResource, scene.ns).mergePatch('nrp-reuse', { spec: { externallyProvisioned: false } });
  assert.is(await hostOf('cp-p', 20_000), 'nrp-reuse');
  assert.is(await consumerOf('nrp-free'), undefined);
});

test('H-6: a host being deleted is never chosen, not even one reserved for the machine (which it would otherwise wait for)', async () => {
  await availableHosts({ 'nrd-free': { group: 'nrd' } });
  const { host, secret } = simulatedHost('nrd-deleting', { namespace: scene.ns, labels: { group: 'nrd', [NODE_REUSE_LABEL]: 'cp-kcp-d' } });
  host.metadata.finalizers = [HOLD_FINALIZER];
  await scene.client.api(SecretResource, scene.ns).create(secret);
  await scene.client.api(BareMetalHostResource, scene.ns).create(host);
  await hostWhen(scene.client, scene.ns, 'nrd-deleting', 'nrd-deleting available', (h) => h.status?.provisioning?.state === 'available', 30_000);
  await scene.client.api(BareMetalHostResource, scene.ns).delete('nrd-deleting');
  // BMO runs the deletion to its end and lets go; our finalizer keeps the host, deletionTimestamp set.
  const deleting = await hostWhen(
    scene.client,
    scene.ns,
    'nrd-deleting',
    'nrd-deleting released by BMO',
    (h) => !!h.metadata.deletionTimestamp && (h.metadata.finalizers ?? []).join() === HOLD_FINALIZER,
  );
  assert.is(deleting.status?.errorMessage ?? '', '', 'no error: only the deletion excludes it');

  await controlPlaneMachine('cp-d', 'kcp-d', 'nrd');
  assert.is(await hostOf('cp-d'), 'nrd-free');
  assert.is(await consumerOf('nrd-deleting'), undefined);
  await scene.client.api(BareMetalHostResource, scene.ns).mergePatch('nrd-deleting', { metadata: { finalizers: null } });
});

test.run();
