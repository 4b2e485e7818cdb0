// The Metal3Data controller on the real apiserver, rendering: the Secrets of research V-2 byte for
// byte, their type, labels and owner, the spec references, ready, the finalizer; Secrets written once
// and never rewritten; waits that end on the event of what was missing. The controllers run as a user
// bound to exactly deploy/rbac.yaml. Test titles carry the research IDs.
import * as assert from 'uvu/assert';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { MachineResource, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3DataTemplateResource, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import {
  annotateHost,
  createData,
  createHost,
  createScene,
  createTemplate,
  DATA,
  dataSuite,
  dataWhen,
  eventsFor,
  eventually,
  HOST,
  M3M,
  MACHINE,
  type RunningControllers,
  secretText,
  settled,
  startDataControllers,
  TEMPLATE,
} from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data rendering on the real apiserver', {
  errorsMessage: 'no reconcile failed: findings are status, not errors',
});

let controllers: RunningControllers | undefined;

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controllers = track(await startDataControllers(env(), ns));
  return ns;
}

const METADATA_V2 = `String-1: String-1\nproviderid: NS/${HOST}/${M3M}\n`;
const NETWORKDATA_V2 = 'links:\n- ethernet_mac_address: 12:34:56:78:9A:BC\n  id: eth0\n  mtu: 1500\n  type: phy\nnetworks: []\nservices: []\n';

test("V-2/D-8/D-9/D-11/D-12: a Metal3Data gets its two Secrets with upstream's exact bytes, type, labels and owner; spec references, ready, finalizer", async () => {
  const ns = await setup('m3d-render');
  const scene = await createScene(admin(), ns);
  const data = await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  assert.ok(data.metadata.finalizers?.includes('metal3data.infrastructure.cluster.x-k8s.io'), 'D-8: finalizer');
  assert.equal(data.spec?.metaData, { name: `${M3M}-metadata`, namespace: ns }, 'D-9 step 5');
  assert.equal(data.spec?.networkData, { name: `${M3M}-networkdata`, namespace: ns }, 'D-9 step 6');
  assert.is(data.status?.errorMessage, undefined);
  assert.is(await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'), METADATA_V2.replace('NS', ns));
  assert.is(await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData'), NETWORKDATA_V2);
  for (const name of [`${M3M}-metadata`, `${M3M}-networkdata`]) {
    const secret = await admin().api(SecretResource, ns).get(name);
    assert.is(secret.type, 'infrastructure.cluster.x-k8s.io/secret');
    assert.equal(
      secret.metadata.labels,
      { 'cluster.x-k8s.io/cluster-name': 'cluster1', 'metal3data.infrastructure.cluster.x-k8s.io/rendered': 'true' },
      "E-16 (fixed): the template's clusterName; the label the rendered-Secret watch selects",
    );
    assert.equal(secret.metadata.ownerReferences, [
      { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: DATA, uid: scene.data!.metadata.uid!, controller: true },
    ]);
  }
  assert.is((await eventsFor(admin(), ns, DATA, 'SecretsRendered')).length, 1, 'a Normal event names the Secrets');

  // Nothing left to do: a later reconcile (a label change) writes nothing.
  await settled(controllers!, 0);
  const writes = controllers!.writes();
  const before = controllers!.reconciles('metal3data');
  await admin().api(MachineResource, ns).mergePatch(MACHINE, { metadata: { labels: { touched: 'yes' } } });
  await admin().api(Metal3MachineResource, ns).mergePatch(M3M, { metadata: { labels: { touched: 'yes' } } });
  await sleep(500);
  assert.is(controllers!.reconciles('metal3data'), before, 'DR-21: a rendered Metal3Data is not woken by its inputs');
  assert.is(controllers!.writes(), writes, 'no write');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("B2-21/B2-22/AP-19/AP-20: a v1beta1 template with fromBootMAC and named links renders the host's boot MAC and the links' names", async () => {
  const ns = await setup('m3d-bootmac');
  // Plain in YAML, while eth0's 00:11:22:33:44:55 reads as a YAML 1.1 base-60 number and is quoted.
  const bootMAC = '00:11:22:33:44:99';
  await createScene(admin(), ns, {
    bootMAC,
    template: {
      metaData: { fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }, { key: 'nic_mac', interface: 'eth1' }] },
      networkData: {
        links: {
          ethernets: [{ type: 'phy', id: 'eth0', name: 'prov0', mtu: 1500, macAddress: { fromHostInterface: 'eth0' } }],
          vlans: [{ id: 'vlan10', name: 'vlan10', vlanID: 10, vlanLink: 'eth0', macAddress: { string: bootMAC } }],
        },
      },
    },
  });
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  const template = await admin().api(Metal3DataTemplateResource, ns).get(TEMPLATE);
  assert.is(template.spec?.metaData?.fromHostInterfaces?.[0]?.fromBootMAC, true, 'AP-19: stored, not pruned');
  assert.is(template.spec?.networkData?.links?.ethernets?.[0]?.name, 'prov0', 'AP-20: stored, not pruned');
  assert.is(
    await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'),
    `boot_mac: ${bootMAC}\nnic_mac: 00:11:22:33:44:66\nproviderid: ${ns}/${HOST}/${M3M}\n`,
  );
  assert.is(
    await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData'),
    'links:\n- ethernet_mac_address: "00:11:22:33:44:55"\n  id: eth0\n  mtu: 1500\n  name: prov0\n  type: phy\n' +
      `- id: vlan10\n  mtu: 1500\n  name: vlan10\n  type: vlan\n  vlan_id: 10\n  vlan_link: eth0\n  vlan_mac_address: ${bootMAC}\nnetworks: []\nservices: []\n`,
  );
});

test('D-9 step 7/D-12/E-39 (changed, issue 21): a planted Secret of the rendered name is not adopted nor rewritten: errorMessage and a Warning event name it, not ready; once it is removed ours is rendered', async () => {
  const ns = await setup('m3d-planted');
  const planted = `${M3M}-metadata`;
  await admin().api(SecretResource, ns).create(newSecret({ metadata: { name: planted }, data: { metaData: btoa('Hello') } }));
  const scene = await createScene(admin(), ns);
  const waiting = await dataWhen(admin(), ns, DATA, 'the conflict reported', (d) => d.status?.errorMessage !== undefined);
  assert.is(
    waiting.status?.errorMessage,
    `Secret ${planted} already exists and it is not controlled by this Metal3Data (no controller): it is not used as this Metal3Data's; remove it to let the Secret be rendered`,
  );
  assert.is(waiting.status?.ready, undefined, 'not ready on a Secret it did not render');
  const events = await eventually('Warning event', async () => {
    const found = await eventsFor(admin(), ns, DATA, 'SecretConflict');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');
  assert.is(await secretText(admin(), ns, planted, 'metaData'), 'Hello', 'never rewritten');
  assert.is(controllers!.writes('secrets'), 0, 'nothing written while blocked (D-13: both parts or none)');

  const start = performance.now();
  await admin().api(SecretResource, ns).delete(planted);
  const ready = await dataWhen(admin(), ns, DATA, 'ready with its own Secrets', (d) => d.status?.ready === true, 5_000);
  assert.ok(performance.now() - start < 5_000, 'woken by the watch of the blocking Secret, not by the 120 s safety net');
  assert.is(ready.status?.errorMessage, undefined);
  assert.is(await secretText(admin(), ns, planted, 'metaData'), METADATA_V2.replace('NS', ns));
  for (const name of [planted, `${M3M}-networkdata`]) {
    assert.is((await admin().api(SecretResource, ns).get(name)).metadata.ownerReferences?.[0]?.uid, scene.data!.metadata.uid);
  }
});

test('D-12 (changed, issue 21): a Secret of the rendered name controlled by another living Metal3Data is never taken over or deleted', async () => {
  const ns = await setup('m3d-taken');
  const scene = await createScene(admin(), ns);
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  // A second Metal3Data (another index) of the same machine: its Secret names are the first one's.
  const second = await createData(admin(), ns, scene.claim, scene.metal3Machine, {}, 1);
  const blocked = await dataWhen(admin(), ns, second.metadata.name!, 'the conflict reported', (d) => d.status?.errorMessage !== undefined);
  assert.match(blocked.status!.errorMessage!, `it is controlled by Metal3Data ${DATA}, which still exists`);
  assert.is(blocked.status?.ready, undefined);
  assert.is((await admin().api(SecretResource, ns).get(`${M3M}-metadata`)).metadata.ownerReferences?.[0]?.uid, scene.data!.metadata.uid, 'left to its owner');
});

test('V-2/D-9 step 7: a template with neither metaData nor networkData makes the Metal3Data ready without Machine or host', async () => {
  const ns = await setup('m3d-empty');
  await createScene(admin(), ns, { template: {}, without: ['machine', 'host', 'hostAnnotation'] });
  const data = await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  assert.is(data.spec?.metaData, undefined);
  assert.is(data.spec?.networkData, undefined);
  assert.is(controllers!.writes('secrets'), 0);
});

test('D-9 steps 3, 8, 9 (changed): a Metal3Data waiting for its template, owner Machine and host is rendered as soon as each appears, without polling', async () => {
  const ns = await setup('m3d-waits');
  await createScene(admin(), ns, { without: ['template', 'machine', 'host', 'hostAnnotation'] });
  await settled(controllers!, 0);
  const data = await dataWhen(admin(), ns, DATA, 'finalizer', (d) => (d.metadata.finalizers?.length ?? 0) > 0);
  assert.is(data.status?.ready, undefined, 'waits for the template');
  let before = controllers!.reconciles();
  await createTemplate(admin(), ns);
  await settled(controllers!, before);
  before = controllers!.reconciles();
  const machine = await admin().api(MachineResource, ns).create(
    newMachine({
      metadata: { name: MACHINE },
      spec: {
        clusterName: 'cluster1',
        bootstrap: {},
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: M3M },
      },
    }),
  );
  await admin().api(Metal3MachineResource, ns).mergePatch(M3M, {
    metadata: { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: MACHINE, uid: machine.metadata.uid!, controller: true }] },
  });
  await settled(controllers!, before);
  assert.is((await admin().api(SecretResource, ns).list()).items.length, 0, 'still waiting for the host');
  const start = performance.now();
  await createHost(admin(), ns);
  await annotateHost(admin(), ns);
  await dataWhen(admin(), ns, DATA, 'ready once the host is known', (d) => d.status?.ready === true, 5_000);
  assert.ok(performance.now() - start < 5_000, 'woken by the events, not by the 120 s safety net');
  assert.is(await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'), METADATA_V2.replace('NS', ns));
});

test.run();
