// The providerID workflow with a cloud provider (seed 000 step 2, research P-7, P-4, P-5, V-9, P-14),
// against a real apiserver, the simulated BMO, the real Cluster API and one workload apiserver. The
// Metal3Cluster has `cloudProviderEnabled: true`; the simulated "cloud provider" (the workload
// simulator's providerID mode, `cloud-provider` for the file, switched per test with the Cluster's
// PROVIDER_ID_MODE_ANNOTATION) sets the Node's ID, and CAPM3 only adopts it: it never patches a Node
// here. Every machine selects its own host by a unique label; the tests run in order (the mode
// annotation is changed by later tests, and the V-9 duplicates must be gone before the next adoption).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newNode, type Node } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { PROVIDER_ID_MODE_ANNOTATION, type ProviderIdMode } from '@metal3-ts/test/sim/workload/index';
import {
  CLUSTER,
  createMachine,
  eventually,
  IMAGE,
  machineTestScene,
  machineWithNode as withNode,
  metal3MachineWhen,
  PROVISION_MS,
  SLOT_LABEL,
  v1,
  v2,
  workloadNodeApi,
  workloadNodeWhen,
} from './support.ts';

/** Each machine selects the one host carrying its slot, so which host it gets is known in advance. */
const SLOTS = ['p7', 'v9', 'p7legacy', 'nomatch'] as const;
type Slot = (typeof SLOTS)[number];

const test = suite('Metal3Machine providerID with a cloud provider (P-7, V-9)');
const scene = machineTestScene(test, {
  prefix: 'machine-pid-cloud',
  world: { providerIdMode: 'cloud-provider' },
  cluster: { cloudProvider: true },
  hosts: Object.fromEntries(SLOTS.map((slot) => [`host-${slot}`, { [SLOT_LABEL]: slot }])),
});

// ---------------------------------------------------------------------------------------------
// helpers

/** The workload cluster's Node API (through the scene's ClusterCache on the admin client). */
const nodes = () => workloadNodeApi(scene.workloadCache, scene.ns, PROVISION_MS);
const nodeWhen = (name: string, what: string, check: (n: Node) => boolean) => workloadNodeWhen(scene.workloadCache, scene.ns, name, what, check, PROVISION_MS);

/** A Node nobody's kubelet runs: what a stale or hand-made Node looks like to CAPM3. */
async function createNode(name: string, providerID: string): Promise<void> {
  await (await nodes()).create(newNode({ metadata: { name, labels: { 'kubernetes.io/os': 'linux' } }, spec: { providerID } }));
}

/** Requests of the controller (and its ClusterCache) to workload Nodes; the management cluster has none. */
const nodeRequests = (verb: 'list' | 'patch' | 'update') => scene.controller.counter.count({ resource: 'nodes', verb });

/**
 * Resolves once a reconcile both began and ended after the call (the one in flight then may have begun
 * before): it looked at the Nodes as its workload Node watch has seen them now and wrote what it
 * decided, so no request need tell it.
 */
async function nextNodeLook(): Promise<void> {
  const seen = scene.controller.reconciles();
  await eventually('the controller to reconcile twice more', () => (scene.controller.reconciles() > seen + 1 ? true : undefined), PROVISION_MS);
}

/** Returns once the simulated kubelet, which reads the mode from its Cluster informer when a host provisions, has seen it. */
async function setMode(mode: ProviderIdMode): Promise<void> {
  await scene.client.api(ClusterResource, scene.ns).mergePatch(CLUSTER, { metadata: { annotations: { [PROVIDER_ID_MODE_ANNOTATION]: mode } } });
  const clusters = scene.world.informers.informerFor(ClusterResource).store;
  const seen = () => clusters.get({ namespace: scene.ns, name: CLUSTER })?.metadata.annotations?.[PROVIDER_ID_MODE_ANNOTATION] === mode;
  await eventually(`the simulators to see provider-id mode ${mode}`, () => (seen() ? true : undefined));
}

async function machineFor(slot: Slot, name: string): Promise<void> {
  await createMachine(scene.client, scene.ns, name, { spec: { image: IMAGE, hostSelector: { matchLabels: { [SLOT_LABEL]: slot } } } });
}

const newID = (slot: Slot, m3m: string) => `metal3://${scene.ns}/host-${slot}/${m3m}`;
const legacyID = (slot: Slot) => `metal3://${scene.host(`host-${slot}`).metadata.uid ?? ''}`;

const readyWith = (name: string, providerID: string) =>
  metal3MachineWhen(
    scene.client,
    scene.ns,
    name,
    `${name} ready with ${providerID}`,
    (m) => m.status?.ready === true && m.spec?.providerID === providerID,
    PROVISION_MS,
  );

const machineWithNode = (name: string) => withNode(scene.client, scene.ns, name, PROVISION_MS);

function assertNotAdopted(m3m: Metal3Machine, what: string): void {
  assert.is.not(m3m.status?.ready, true, `${what}: not ready`);
  assert.is(m3m.spec?.providerID, undefined, `${what}: no providerID`);
  assert.is.not(v1(m3m, 'KubernetesNodeReady').split('/')[0], 'True', `${what}: no Node`);
}

// ---------------------------------------------------------------------------------------------

test('P-7, P-14 row 2, seed 000 step 2: the cloud provider set the new-format ID on the Node; CAPM3 copies it and never patches the Node', async () => {
  const before = nodeRequests('patch') + nodeRequests('update');
  await machineFor('p7', 'm-p7');
  const id = newID('p7', 'm-p7');
  // Registered and its status written: the simulated kubelet writes it no more.
  const node = await nodeWhen('host-p7', 'the Node of host-p7 registered by the cloud provider', (n) => !!n.spec?.providerID && !!n.status?.conditions?.length);
  assert.is(node.spec?.providerID, id, 'precondition: the simulated cloud provider wrote the new format');

  const m3m = await readyWith('m-p7', id);
  assert.is(v1(m3m, 'KubernetesNodeReady'), 'True//');
  assert.is(v2(m3m, 'Metal3DataReady'), 'True/SecretsSetExternally', 'P-7: no data template, nothing CAPM3 rendered');
  assert.is(v2(m3m, 'Ready'), 'True/Ready');

  // seed 002: Cluster API finds the Node by the copied ID
  const machine = await machineWithNode('m-p7');
  assert.is(machine.spec?.providerID, id);
  assert.is(machine.status?.nodeRef?.name, 'host-p7');

  // P-7: CAPM3 never writes the Node in this mode
  assert.is(nodeRequests('patch') + nodeRequests('update'), before, 'no Node write');
  const after = await (await nodes()).get('host-p7');
  assert.is(after.spec?.providerID, id);
  // Cluster API writes the Node (its annotations, label sync), so its resourceVersion moves: what
  // stays as the cloud provider left it is the spec, and the request counter above shows no write is ours.
  assert.equal(after.spec, node.spec, 'the Node spec as the cloud provider left it');
  assert.is(after.metadata.annotations?.['cluster.x-k8s.io/machine'], 'm-p7', 'Cluster API annotated the Node of its Machine');
  assert.is(scene.controller.errors(), 0);
});

test('P-4, P-5 / V-9 row 2 then row 1, live: duplicate IDs in the workload cluster block adoption until they are gone', async () => {
  // Before the host provisions: a stale Node with exactly the ID the cloud provider will give host-v9
  // (V-9 row 2: one providerID in use by two Nodes) and one with the host's legacy ID (V-9 row 1: the
  // legacy and the new ID of one machine on two Nodes).
  const id = newID('v9', 'm-v9');
  await createNode('stale-twin', id);
  await createNode('legacy-twin', legacyID('v9'));
  const patchesBefore = nodeRequests('patch') + nodeRequests('update');
  await machineFor('v9', 'm-v9');
  await nodeWhen('host-v9', 'the Node of host-v9 registered by the cloud provider', (n) => n.spec?.providerID === id);

  // row 2: providerID <id> is in use by multiple nodes (stale-twin, host-v9)
  await nextNodeLook();
  assertNotAdopted(await scene.client.api(Metal3MachineResource, scene.ns).get('m-v9'), 'V-9 row 2');

  // row 1: both providerIDs (legacy and new) cannot be used at the same time (legacy-twin, host-v9)
  await (await nodes()).delete('stale-twin');
  await nextNodeLook();
  assertNotAdopted(await scene.client.api(Metal3MachineResource, scene.ns).get('m-v9'), 'V-9 row 1');
  const machine = await scene.client.api(MachineResource, scene.ns).get('m-v9');
  assert.is(machine.spec?.providerID, undefined, 'Cluster API got no providerID either');

  // V-9 row 4: only the new ID, on one Node ⇒ adopted (the workload Node watch or the poll notices)
  await (await nodes()).delete('legacy-twin');
  const m3m = await readyWith('m-v9', id);
  assert.is(v1(m3m, 'KubernetesNodeReady'), 'True//');
  assert.is((await machineWithNode('m-v9')).status?.nodeRef?.name, 'host-v9');
  assert.is(nodeRequests('patch') + nodeRequests('update'), patchesBefore, 'P-7: no Node write');
  assert.is(scene.controller.errors(), 0, 'a duplicate is a wait, not an error loop');
});

test('P-7, seed 000 step 2: a cloud provider that sets the legacy ID is copied verbatim', async () => {
  await setMode('legacy');
  await machineFor('p7legacy', 'm-p7legacy');
  const id = legacyID('p7legacy');
  const node = await nodeWhen('host-p7legacy', 'the Node of host-p7legacy', () => true);
  assert.is(node.spec?.providerID, id, 'precondition: the legacy format on the Node');
  const m3m = await readyWith('m-p7legacy', id);
  assert.is(v1(m3m, 'KubernetesNodeReady'), 'True//');
  const machine = await machineWithNode('m-p7legacy');
  assert.is(machine.spec?.providerID, id);
  assert.is(machine.status?.nodeRef?.name, 'host-p7legacy');
  assert.is(nodeRequests('patch') + nodeRequests('update'), 0, 'P-7: no Node write in this whole file so far');
  assert.is(scene.controller.errors(), 0);
});

test('P-7, P-14 row 3: cloud provider enabled but no Node with our ID: not ready, the Node wait goes on without errors; a late cloud provider is picked up', async () => {
  await setMode('default');
  await machineFor('nomatch', 'm-nomatch');
  const node = await nodeWhen('host-nomatch', 'the Node of host-nomatch', () => true);
  assert.is(node.spec?.providerID, undefined, 'precondition: the kubelet left the providerID empty');

  await nextNodeLook();
  await nextNodeLook(); // a second look with no event in between: it polls
  const m3m = await scene.client.api(Metal3MachineResource, scene.ns).get('m-nomatch');
  assertNotAdopted(m3m, 'no matching Node');
  assert.is(m3m.metadata.annotations?.['metal3.io/BareMetalHost'], `${scene.ns}/host-nomatch`, 'the host is provisioned for it all the same');
  assert.is(nodeRequests('patch') + nodeRequests('update'), 0, 'CAPM3 does not fill the cloud provider in');
  assert.is(scene.controller.errors(), 0, 'a wait, not an error loop');
  assert.equal(scene.controller.problems(), []);

  // The cloud provider catches up (empty ⇒ a value is the one change Kubernetes allows, P-11).
  const id = newID('nomatch', 'm-nomatch');
  await (await nodes()).mergePatch('host-nomatch', { spec: { providerID: id } });
  const ready = await readyWith('m-nomatch', id);
  assert.is(v1(ready, 'KubernetesNodeReady'), 'True//');
  assert.is((await machineWithNode('m-nomatch')).status?.nodeRef?.name, 'host-nomatch');
  assert.is(scene.controller.errors(), 0);
});

test.run();
