// The providerID workflow without a cloud provider (seed 000 steps 1, 3 and 4; research P-6, P-8,
// P-10, P-12, E-11 as changed here, E-37, M-19; a host annotation naming another namespace, E-29, is
// refused before any provider ID: host-annotation.test.ts), against a real apiserver, the simulated BMO,
// the real Cluster API and one workload apiserver. The simulated kubelets leave the providerID to CAPM3
// (mode `default`); what each Node looks like comes from the machine's own bootstrap user data, as in
// a real cluster: a kubelet `provider-id` argument (the legacy `metal3://{{ ds.meta_data.uuid }}`, or
// a literal new-format ID), with or without the `metal3.io/uuid` node label, under another node name.
// The default path (one labelled Node, patched by CAPM3) is lifecycle.test.ts's. Every machine selects
// its own host by a unique label; the tests run in order, and the E-37 request counts need the
// machines of the earlier tests settled.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newNode, newSecret, type Node, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import {
  CLUSTER,
  createMachine,
  eventsFor,
  eventually,
  hostWhen,
  IMAGE,
  JOIN_CLOUD_CONFIG,
  machineTestScene,
  machineWithNode as withNode,
  metal3MachineWhen,
  PROVISION_MS,
  settled,
  sleep,
  SLOT_LABEL,
  v1,
  v2,
  workloadNodeApi,
  workloadNodeWhen,
} from './support.ts';

/** Each machine selects the one host carrying its slot, so which host it gets is known in advance. */
const SLOTS = ['legacy', 'p6', 'hostname', 'e11'] as const;
type Slot = (typeof SLOTS)[number];

const test = suite('Metal3Machine providerID without a cloud provider (P-6, P-8, P-10, P-12, E-11, E-37)');
const scene = machineTestScene(test, {
  prefix: 'machine-pid-node',
  cluster: { cloudProvider: false },
  hosts: Object.fromEntries(SLOTS.map((slot) => [`host-${slot}`, { [SLOT_LABEL]: slot }])),
});

// ---------------------------------------------------------------------------------------------
// helpers

/** The kubelet part of support.ts's kubeadm join cloud-config, which this file rewrites. */
const REGISTRATION = "        kubeletExtraArgs:\n          node-labels: metal3.io/uuid={{ ds.meta_data.uuid }}\n        name: '{{ ds.meta_data.name }}'\n";

/** support.ts's kubeadm join cloud-config with other kubelet arguments (v1beta3 map) and node name. */
function joinConfig(kubeletArgs: readonly string[], nodeName = '{{ ds.meta_data.name }}'): string {
  assert.ok(JOIN_CLOUD_CONFIG.includes(REGISTRATION), 'the join cloud-config has the nodeRegistration this file rewrites');
  const args = kubeletArgs.length > 0
    ? `        kubeletExtraArgs:\n${kubeletArgs.map((arg) => `          ${arg}\n`).join('')}`
    : '        kubeletExtraArgs: {}\n';
  return JOIN_CLOUD_CONFIG.replace(REGISTRATION, `${args}        name: '${nodeName}'\n`);
}

/** A bootstrap data Secret of its own for one machine (`dataSecretName`, no configRef). */
async function bootstrapSecret(name: string, cloudConfig: string): Promise<string> {
  await scene.client.api(SecretResource, scene.ns).create(
    newSecret({
      metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: cloudConfig, format: 'cloud-config' },
    }),
  );
  return name;
}

async function machineFor(
  slot: Slot,
  name: string,
  options: { userData?: string; providerID?: string; annotations?: Record<string, string> } = {},
): Promise<void> {
  await createMachine(scene.client, scene.ns, name, {
    ...(options.annotations ? { annotations: options.annotations } : {}),
    spec: { image: IMAGE, hostSelector: { matchLabels: { [SLOT_LABEL]: slot } }, ...(options.providerID ? { providerID: options.providerID } : {}) },
    ...(options.userData ? { bootstrap: { dataSecretName: options.userData } } : {}),
  });
}

/** The workload cluster's Node API (through the scene's ClusterCache on the admin client). */
const nodes = () => workloadNodeApi(scene.workloadCache, scene.ns, PROVISION_MS);
const nodeWhen = (name: string, what: string, check: (n: Node) => boolean) => workloadNodeWhen(scene.workloadCache, scene.ns, name, what, check, PROVISION_MS);

/** Requests of the controller (and its ClusterCache) to workload Nodes; the management cluster has none. */
const nodeRequests = (verb: 'list' | 'patch' | 'update') => scene.controller.counter.count({ resource: 'nodes', verb });
const nodeWrites = () => nodeRequests('patch') + nodeRequests('update');

const newID = (slot: Slot, m3m: string) => `metal3://${scene.ns}/host-${slot}/${m3m}`;
const uid = (slot: Slot) => scene.host(`host-${slot}`).metadata.uid ?? '';

const readyWith = (name: string, providerID: string, extra: (m: Metal3Machine) => boolean = () => true) =>
  metal3MachineWhen(
    scene.client,
    scene.ns,
    name,
    `${name} ready with ${providerID}`,
    (m) => m.status?.ready === true && m.spec?.providerID === providerID && extra(m),
    PROVISION_MS,
  );

const machineWithNode = (name: string) => withNode(scene.client, scene.ns, name, PROVISION_MS);

const nodeReady = (m: Metal3Machine) => v1(m, 'KubernetesNodeReady') === 'True//';

// ---------------------------------------------------------------------------------------------

test('P-8 legacy, seed 000 (pivot / legacy IDs): a labelled Node registered with metal3://<host uid> is adopted as is, without a Node patch', async () => {
  const userData = await bootstrapSecret(
    'bootstrap-legacy',
    joinConfig(['node-labels: metal3.io/uuid={{ ds.meta_data.uuid }}', 'provider-id: metal3://{{ ds.meta_data.uuid }}']),
  );
  const writes = nodeWrites();
  await machineFor('legacy', 'm-legacy', { userData });
  const legacy = `metal3://${uid('legacy')}`;
  const node = await nodeWhen('host-legacy', 'the Node of host-legacy', () => true);
  assert.is(node.spec?.providerID, legacy, 'precondition: the kubelet registered with the legacy ID');
  assert.is(node.metadata.labels?.['metal3.io/uuid'], uid('legacy'), 'precondition: and the uuid label');

  const m3m = await readyWith('m-legacy', legacy, nodeReady);
  assert.is(v2(m3m, 'Metal3DataReady'), 'True/SecretsSetExternally', 'P-9');
  assert.is(v2(m3m, 'Ready'), 'True/Ready');
  const machine = await machineWithNode('m-legacy');
  assert.is(machine.spec?.providerID, legacy, 'seed 002: Cluster API copies it');
  assert.is(machine.status?.nodeRef?.name, 'host-legacy');
  assert.is(nodeWrites(), writes, 'the Node is not written');
  assert.is((await (await nodes()).get('host-legacy')).spec?.providerID, legacy);
  assert.is(scene.controller.errors(), 0);
});

test('E-37 / M-19: once the Machine has a nodeRef, a reconcile no longer looks at the workload Nodes', async () => {
  // m-legacy is ready and its Machine has a nodeRef (previous test); let that settle.
  await settled(scene.controller, 0, 1_000);
  const lists = nodeRequests('list');
  const looks = scene.controller.workloadLooks();
  assert.ok(looks > 0, 'precondition: m-legacy looked at the workload cluster on its way to ready');
  const reconciles = scene.controller.reconciles();
  const writes = scene.controller.writes();
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('m-legacy', { metadata: { labels: { touched: 'yes' } } });
  await settled(scene.controller, reconciles, 1_000);
  assert.ok(scene.controller.reconciles() > reconciles, 'the label change was reconciled');
  assert.is(scene.controller.workloadLooks(), looks, 'no look at the workload cluster');
  assert.is(nodeRequests('list'), lists, 'no workload Node list');
  assert.is(scene.controller.writes(), writes, 'nothing written either');
  const m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('m-legacy');
  assert.is(m3m.status?.ready, true);
  assert.is(v2(m3m, 'AssociateMetal3MachineMetaData'), 'True/AssociateMetal3MachineMetaDataSuccess', 'M-19');
});

test('P-6 step A: spec.providerID set at creation and a Node already carrying it ⇒ ready, KubernetesNodeReady True, no Node patch', async () => {
  // The kubelet is started with the literal new-format ID and registers under another name without
  // the uuid label: neither the label path (C) nor the hostname path (E) can find this Node, only
  // step A's lookup by providerID can.
  const id = newID('p6', 'm-p6');
  const userData = await bootstrapSecret('bootstrap-p6', joinConfig([`provider-id: ${id}`], 'kubelet-{{ ds.meta_data.name }}'));
  const writes = nodeWrites();
  await machineFor('p6', 'm-p6', { userData, providerID: id });
  const node = await nodeWhen('kubelet-host-p6', 'the Node of host-p6', () => true);
  assert.is(node.spec?.providerID, id, 'precondition: the Node carries the ID');
  assert.is(node.metadata.labels?.['metal3.io/uuid'], undefined, 'precondition: no uuid label');
  assert.is(node.metadata.labels?.['kubernetes.io/hostname'], 'kubelet-host-p6', 'precondition: not the host name');

  const m3m = await readyWith('m-p6', id, nodeReady);
  assert.is(v2(m3m, 'Ready'), 'True/Ready');
  const machine = await machineWithNode('m-p6');
  assert.is(machine.spec?.providerID, id);
  assert.is(machine.status?.nodeRef?.name, 'kubelet-host-p6');
  assert.is(nodeWrites(), writes, 'the Node is not written');
  assert.is(scene.controller.errors(), 0);
});

test('P-10, P-12, P-14 row 7, seed 000 step 4: no uuid label and no configRef ⇒ the default new-format ID, given to the Node found by kubernetes.io/hostname', async () => {
  const userData = await bootstrapSecret('bootstrap-hostname', joinConfig([]));
  const writes = nodeWrites();
  await machineFor('hostname', 'm-hostname', { userData });
  const id = newID('hostname', 'm-hostname');
  const node = await nodeWhen('host-hostname', 'the Node of host-hostname', () => true);
  assert.is(node.metadata.labels?.['metal3.io/uuid'], undefined, 'precondition: no uuid label');
  assert.is(node.metadata.labels?.['kubernetes.io/hostname'], 'host-hostname');

  const m3m = await readyWith('m-hostname', id, nodeReady);
  assert.ok(m3m.status?.addresses?.some((a) => a.type === 'Hostname' && a.address === 'host-hostname'), 'M-31: the hostname the fallback matches on');
  const patched = await nodeWhen('host-hostname', 'the Node given the providerID', (n) => !!n.spec?.providerID);
  assert.is(patched.spec?.providerID, id, 'P-12: the Node found by hostname gets spec.providerID');
  assert.is(nodeWrites(), writes + 1, 'one Node patch');
  const machine = await machineWithNode('m-hostname');
  assert.is(machine.spec?.providerID, id);
  assert.is(machine.status?.nodeRef?.name, 'host-hostname');
  await eventually(
    'a ProviderIDSet event',
    async () => ((await eventsFor(scene.client, scene.ns, 'm-hostname', 'ProviderIDSet')).length > 0 ? true : undefined),
    PROVISION_MS,
  );
  assert.is(scene.controller.errors(), 0);
});

test('E-11 (changed), P-8: two Nodes labelled with the host uid are a conflict: KubernetesNodeReady False/AssociateM3MetaDataFailed/Warning naming both, a ProviderIDConflict event, not ready, no Node patched, no error loop', async () => {
  // Both Nodes exist before the host provisions, so the controller's first look already sees two:
  // `host-e11` (the name the host's kubelet registers under; it adopts the existing Node) and a
  // stray `intruder`, both labelled with host-e11's uid. (With the intruder alone first, CAPM3 would
  // adopt it as the one labelled Node, P-8, before the kubelet registered: a race, not this case.)
  const label = { 'metal3.io/uuid': uid('e11') };
  const api = await nodes();
  await api.create(newNode({ metadata: { name: 'host-e11', labels: { ...label, 'kubernetes.io/hostname': 'host-e11' } } }));
  await api.create(newNode({ metadata: { name: 'intruder', labels: { ...label } } }));
  const writes = nodeWrites();
  await machineFor('e11', 'm-e11'); // support.ts's bootstrap data: the kubelet labels its Node metal3.io/uuid=<host uid>
  await hostWhen(scene.client, scene.ns, 'host-e11', 'host-e11 provisioned', (h) => h.status?.provisioning?.state === 'provisioned', PROVISION_MS);

  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    'm-e11',
    'm-e11 reporting the conflict',
    (m) => v1(m, 'KubernetesNodeReady') === 'False/AssociateM3MetaDataFailed/Warning',
    PROVISION_MS,
  );
  const message = getCondition(m3m, 'KubernetesNodeReady')?.message ?? '';
  assert.ok(message.includes('host-e11') && message.includes('intruder'), `the message names both Nodes: ${message}`);
  assert.ok(message.includes(`metal3.io/uuid=${uid('e11')}`), `and the label: ${message}`);
  assert.is(v2(m3m, 'AssociateMetal3MachineMetaData'), 'False/AssociateMetal3MachineMetaDataFailed');
  assert.is.not(m3m.status?.ready, true, 'not ready');
  assert.is(m3m.spec?.providerID, undefined, 'no providerID: no fall-through to the default ID and the hostname path (upstream E-11)');
  const events = await eventually('a ProviderIDConflict event', async () => {
    const found = await eventsFor(scene.client, scene.ns, 'm-e11', 'ProviderIDConflict');
    return found.length > 0 ? found : undefined;
  }, PROVISION_MS);
  assert.is(events[0]?.type, 'Warning');
  assert.ok(events[0]?.message?.includes('intruder'), events[0]?.message);
  await sleep(500);
  assert.is(nodeWrites(), writes, 'no Node patched, not even the one found by hostname');
  assert.is((await api.get('host-e11')).spec?.providerID, undefined);
  assert.is((await api.get('intruder')).spec?.providerID, undefined);
  assert.is(scene.controller.errors(), 0, 'a conflict is reported, not retried as an error');
});

// Nothing in the management cluster changes when the Nodes are fixed: the conflict is looked at again
// by the Node watch (the deletion is an event) or the Node poll (200 ms doubling here), well before the 120 s safety net of these tests.
test('E-11 (changed): removing the extra Node heals the machine (Node watch or poll)', async () => {
  await (await nodes()).delete('intruder');
  const id = newID('e11', 'm-e11');
  const healed = await readyWith('m-e11', id, nodeReady);
  assert.is(v2(healed, 'AssociateMetal3MachineMetaData'), 'True/AssociateMetal3MachineMetaDataSuccess');
  assert.is((await nodeWhen('host-e11', 'host-e11 given the providerID', (n) => !!n.spec?.providerID)).spec?.providerID, id, 'P-11');
  assert.is((await machineWithNode('m-e11')).status?.nodeRef?.name, 'host-e11');
  assert.is(scene.controller.errors(), 0);
});

test.run();
