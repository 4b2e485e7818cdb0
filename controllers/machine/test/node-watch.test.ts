// E-36/E-37 as changed here: a machine waiting for its Node is woken by the Node registering in the
// workload cluster (a watch kept while someone waits there), not by its next poll. The machines'
// bootstrap data is a plain Secret (no configRef: P-10's default ID, then P-12's Node by hostname);
// the simulated kubelets would join only after ten minutes, so the test registers each Node itself,
// once the controller has looked and found none and has gone quiet. The controller's next poll is a
// minute away and its safety net two; the workload cluster answers from the start, as it does once
// its control plane is up. Last, the race behind a CI flake of provider-id-node.test.ts (P-8 legacy):
// the kubelet registers with the legacy ID only after the machine took the default one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newNode } from '@metal3-ts/generated/core/v1';
import {
  createMachine,
  EVENT_MS,
  eventually,
  hostWhen,
  IMAGE,
  machineTestScene,
  machineWithNode,
  metal3MachineWhen,
  PROVISION_MS,
  settled,
  SLOT_LABEL,
  workloadNodeApi,
} from './support.ts';

const SLOTS = ['late-0', 'late-1'] as const;
const LEGACY_SLOT = 'late-legacy';

const test = suite('Metal3Machine woken by its Node registering (E-36, E-37 changed)');
const scene = machineTestScene(test, {
  prefix: 'machine-node-watch',
  hosts: Object.fromEntries([...SLOTS, LEGACY_SLOT].map((slot) => [slot, { [SLOT_LABEL]: slot }])),
  world: { joinDelayMs: 600_000 },
  controller: { nodePollMs: 60_000, requeueAfterMs: 120_000 },
  setup: async (scene) => {
    await workloadNodeApi(scene.workloadCache, scene.ns, PROVISION_MS);
  },
});

const nodeRequests = (verb: string) => scene.controller.counter.count({ resource: 'nodes', verb });

for (const slot of SLOTS) {
  test(`${slot}: the Node registering after the controller looked wakes the machine within seconds, with its poll a minute away`, async () => {
    const lists = nodeRequests('list');
    await createMachine(scene.client, scene.ns, slot, { spec: { image: IMAGE, hostSelector: { matchLabels: { [SLOT_LABEL]: slot } } } });
    await hostWhen(scene.client, scene.ns, slot, `${slot} provisioned`, (h) => h.status?.provisioning?.state === 'provisioned', PROVISION_MS);
    // P-10: ready at once with the default ID, so the controller looked for the Node; P-12: the Node
    // named like the host's hostname is awaited.
    const providerID = `metal3://${scene.ns}/${slot}/${slot}`;
    const waiting = await metal3MachineWhen(
      scene.client,
      scene.ns,
      slot,
      `${slot} ready with the default ID`,
      (m) => m.status?.ready === true && m.spec?.providerID === providerID,
    );
    // The first machine's wait started the cluster's Node watch, which outlives it by a minute: a
    // later machine reads the Nodes the watch keeps rather than listing them (issue 20).
    if (slot !== SLOTS[0]) assert.is(nodeRequests('list'), lists, `${slot} looked at the Nodes the watch kept: no Node list`);
    await settled(scene.controller, 0, 1_000);
    const hostname = waiting.status?.addresses?.find((a) => a.type === 'Hostname')?.address ?? '';
    assert.ok(hostname, 'the host reports a hostname');
    const nodes = await workloadNodeApi(scene.workloadCache, scene.ns, PROVISION_MS);
    const existing = (await nodes.list()).items.filter((n) => n.metadata.labels?.['kubernetes.io/hostname'] === hostname);
    assert.equal(existing, [], 'no Node with that hostname yet');

    await nodes.create(newNode({ metadata: { name: hostname, labels: { 'kubernetes.io/hostname': hostname } } }));
    const registered = performance.now();
    await eventually(
      `the Node ${hostname} given ${providerID}`,
      async () => ((await nodes.get(hostname)).spec?.providerID === providerID ? true : undefined),
      EVENT_MS,
    );
    const seconds = (performance.now() - registered) / 1000;
    assert.ok(seconds < 10, `the Node got its ID ${seconds.toFixed(1)} s after it registered (the next poll was 60 s away)`);
    assert.ok(nodeRequests('watch') >= 1, 'the workload Nodes were watched');
  });
}

// P-10 gives a machine without a bootstrap configRef the default ID as soon as its host is
// provisioned and no labelled Node is there yet. A kubelet started with the legacy ID registers
// later (seed 000: pivoted or legacy clusters). Upstream step A (P-6) then calls the machine ready
// on that Node but keeps the default ID, which Cluster API copies to the Machine: no Node carries
// it, so the Machine never gets a nodeRef. Here step A takes the ID the Node carries.
test(`P-6 (changed), P-8 legacy, P-10: a labelled Node registering with the legacy ID after the machine took the default ID ⇒ the machine takes the legacy ID, no Node write, and Cluster API finds the Node`, async () => {
  const slot = LEGACY_SLOT;
  await createMachine(scene.client, scene.ns, slot, { spec: { image: IMAGE, hostSelector: { matchLabels: { [SLOT_LABEL]: slot } } } });
  await hostWhen(scene.client, scene.ns, slot, `${slot} provisioned`, (h) => h.status?.provisioning?.state === 'provisioned', PROVISION_MS);
  const defaultID = `metal3://${scene.ns}/${slot}/${slot}`;
  const waiting = await metal3MachineWhen(
    scene.client,
    scene.ns,
    slot,
    `${slot} ready with the default ID`,
    (m) => m.status?.ready === true && m.spec?.providerID === defaultID,
  );
  const hostname = waiting.status?.addresses?.find((a) => a.type === 'Hostname')?.address ?? '';
  const uid = scene.host(slot).metadata.uid ?? '';
  const legacy = `metal3://${uid}`;

  const nodes = await workloadNodeApi(scene.workloadCache, scene.ns, PROVISION_MS);
  const writes = scene.controller.counter.count({ resource: 'nodes', verb: 'patch' }) + scene.controller.counter.count({ resource: 'nodes', verb: 'update' });
  await nodes.create(newNode({
    metadata: { name: hostname, labels: { 'kubernetes.io/hostname': hostname, 'metal3.io/uuid': uid } },
    spec: { providerID: legacy },
  }));
  await metal3MachineWhen(
    scene.client,
    scene.ns,
    slot,
    `${slot} given the legacy ID of its Node`,
    (m) => m.status?.ready === true && m.spec?.providerID === legacy,
    EVENT_MS,
  );
  const machine = await machineWithNode(scene.client, scene.ns, slot, PROVISION_MS);
  assert.is(machine.spec?.providerID, legacy, 'Cluster API copied the ID the Node carries');
  assert.is(machine.status?.nodeRef?.name, hostname);
  assert.is((await nodes.get(hostname)).spec?.providerID, legacy);
  assert.is(
    scene.controller.counter.count({ resource: 'nodes', verb: 'patch' }) + scene.controller.counter.count({ resource: 'nodes', verb: 'update' }),
    writes,
    'the Node is not written',
  );
  assert.is(scene.controller.errors(), 0);
});

test.run();
