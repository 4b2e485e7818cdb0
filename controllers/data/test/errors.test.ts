// Bad input on the real apiserver: rendering errors (unknown NIC, bad MAC, conflicting bond
// parameters, a missing pool annotation, E-27's missing pool) land in `status.errorMessage` naming the
// template field, with a Warning event, and nothing is half-written; association errors likewise.
// Fixing the input (the host, an annotation, the Metal3Machine, the template) renders at once.
import * as assert from 'uvu/assert';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3DataTemplateResource, type Metal3DataTemplateSpec, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import {
  annotateHost,
  createPool,
  createScene,
  DATA,
  dataSuite,
  dataWhen,
  eventsFor,
  eventually,
  HOST,
  M3M,
  NICS,
  secretText,
  startDataControllers,
  TEMPLATE,
} from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data bad input on the real apiserver', {
  errorsMessage: 'bad input is status and an event, never a retry loop',
  ipam: true,
});

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  track(await startDataControllers(env(), ns));
  return ns;
}

type TemplateSpec = Omit<Metal3DataTemplateSpec, 'clusterName'>;
const META = { strings: [{ key: 'hello', value: 'world' }] };
const ethernet = (macAddress: object) => ({ links: { ethernets: [{ type: 'phy' as const, id: 'eth0', mtu: 1500, macAddress }] } });

/** Waits for an errorMessage, then checks the event and that no Secret exists. */
async function failsWith(ns: string, expected: string, reason = 'RenderingFailed'): Promise<void> {
  const data = await dataWhen(admin(), ns, DATA, `errorMessage ${expected}`, (d) => d.status?.errorMessage !== undefined);
  assert.is(data.status?.errorMessage, expected);
  assert.is(data.status?.ready, undefined);
  const events = await eventually(`${reason} event`, async () => {
    const found = await eventsFor(admin(), ns, DATA, reason);
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');
  assert.is(events[0]?.message, expected);
  assert.is((await admin().api(SecretResource, ns).list()).items.length, 0, 'nothing half-written: the metadata alone is not written either');
}

test('DR-14/DR-4: an unknown NIC names the field; the host reporting that NIC renders at once', async () => {
  const ns = await setup('m3d-nic');
  await createScene(admin(), ns, { template: { metaData: META, networkData: ethernet({ fromHostInterface: 'eth9' }) } });
  await failsWith(ns, 'spec.networkData.links.ethernets[0].macAddress.fromHostInterface: NIC name not found eth9');
  await admin().api(BareMetalHostResource, ns).mergePatchStatus(HOST, {
    status: { hardware: { hostname: HOST, nics: [...NICS, { name: 'eth9', mac: 'aa:bb:cc:dd:ee:ff' }] } },
  });
  const data = await dataWhen(admin(), ns, DATA, 'ready after the host change', (d) => d.status?.ready === true, 5_000);
  assert.is(data.status?.errorMessage, undefined, 'the message is cleared');
  assert.ok((await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData'))?.includes('ethernet_mac_address: aa:bb:cc:dd:ee:ff'));
});

test("B2-21: fromBootMAC on a host without spec.bootMACAddress is upstream's error naming the entry; setting the host's boot MAC renders at once", async () => {
  const ns = await setup('m3d-bootmac');
  await createScene(admin(), ns, { template: { metaData: { fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }] } } });
  await failsWith(ns, `spec.metaData.fromHostInterfaces[0].fromBootMAC: metadata key "boot_mac": BareMetalHost ${ns}/${HOST} spec.bootMACAddress is empty`);
  await admin().api(BareMetalHostResource, ns).mergePatch(HOST, { spec: { bootMACAddress: '00:11:22:33:44:99' } });
  const data = await dataWhen(admin(), ns, DATA, 'ready after the host change', (d) => d.status?.ready === true, 5_000);
  assert.is(data.status?.errorMessage, undefined, 'the message is cleared');
  assert.ok((await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'))?.startsWith('boot_mac: 00:11:22:33:44:99\n'));
});

test('DR-14: a bad MAC address', async () => {
  const ns = await setup('m3d-mac');
  await createScene(admin(), ns, { template: { metaData: META, networkData: ethernet({ string: 'XX:XX:XX:XX:XX:XX' }) } });
  await failsWith(ns, 'spec.networkData.links.ethernets[0].macAddress: bad MAC address: XX:XX:XX:XX:XX:XX');
});

test('DR-15: bond parameters that collide with the structured bond fields', async () => {
  const ns = await setup('m3d-bond');
  const bond = {
    id: 'bond0',
    mtu: 1500,
    bondMode: 'active-backup' as const,
    bondLinks: ['eth0'],
    macAddress: { string: '12:34:56:78:9A:BC' },
    parameters: { mode: 'x' },
  };
  await createScene(admin(), ns, { template: { networkData: { links: { bonds: [bond] } } } });
  const data = await dataWhen(admin(), ns, DATA, 'errorMessage', (d) => d.status?.errorMessage !== undefined);
  assert.match(data.status!.errorMessage!, /^spec\.networkData\.links\.bonds\[0\]\S*: illegal params "mode" into bond params blob into link id=bond0$/);
  assert.is((await admin().api(SecretResource, ns).list()).items.length, 0);
});

test('DR-20: a pool named by an annotation missing on the host; annotating the host renders at once', async () => {
  const ns = await setup('m3d-annotation');
  await createPool(admin(), ns, 'pool-a', { pools: [{ subnet: '10.1.0.0/24' }], prefix: 24 });
  const network = { id: 'n', link: 'eth0', fromPoolAnnotation: { object: 'baremetalhost' as const, annotation: 'ippool.metal3.io/n' }, routes: [] };
  const template: TemplateSpec = { networkData: { ...ethernet({ string: '12:34:56:78:9A:BC' }), networks: { ipv4: [network] } } };
  await createScene(admin(), ns, { template });
  await failsWith(ns, 'spec.networkData.networks.ipv4[0].fromPoolAnnotation: annotation ippool.metal3.io/n not found or empty on baremetalhost');
  await admin().api(BareMetalHostResource, ns).mergePatch(HOST, { metadata: { annotations: { 'ippool.metal3.io/n': 'pool-a' } } });
  await dataWhen(admin(), ns, DATA, 'ready after annotating', (d) => d.status?.ready === true, 5_000);
  assert.ok((await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData'))?.includes('ip_address: 10.1.0.1'));
});

test('E-27 (kept): a DHCP route gateway named by annotation is not claimed, so rendering fails "Failed to fetch pool from cache"', async () => {
  const ns = await setup('m3d-e27');
  const dhcp = {
    id: 'd',
    link: 'eth0',
    routes: [{ network: '10.0.0.0', prefix: 8, gateway: { fromPoolAnnotation: { object: 'baremetalhost' as const, annotation: 'gw' } } }],
  };
  await createScene(admin(), ns, {
    template: { networkData: { ...ethernet({ string: '12:34:56:78:9A:BC' }), networks: { ipv4DHCP: [dhcp] } } },
    hostAnnotations: { gw: 'pool-gw' },
  });
  await failsWith(ns, 'spec.networkData.networks.ipv4DHCP[0].routes[0].gateway.fromPoolAnnotation: Failed to fetch pool from cache');
});

test('D-9 step 4: a Metal3Machine that does not point back at the template; correcting it renders at once', async () => {
  const ns = await setup('m3d-pointback');
  await createScene(admin(), ns, { metal3MachineTemplate: 'another' });
  await failsWith(ns, 'Metal3Machine associated with Metal3DataTemplate is not found', 'AssociationInvalid');
  await admin().api(Metal3MachineResource, ns).mergePatch(M3M, { spec: { dataTemplate: { name: TEMPLATE, namespace: ns } } });
  await dataWhen(admin(), ns, DATA, 'ready after the fix', (d) => d.status?.ready === true, 5_000);
});

test('D-9 step 3: a template of another cluster is refused; fixing its clusterName renders at once', async () => {
  const ns = await setup('m3d-othercluster');
  await createScene(admin(), ns, { without: ['template'] });
  await admin().api(Metal3DataTemplateResource, ns).create({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3DataTemplate',
    metadata: { name: TEMPLATE },
    spec: { clusterName: 'cluster2', metaData: META },
  });
  await failsWith(ns, 'Metal3DataTemplate associated with another cluster', 'AssociationInvalid');
  await admin().api(Metal3DataTemplateResource, ns).mergePatch(TEMPLATE, { spec: { clusterName: 'cluster1' } });
  await dataWhen(admin(), ns, DATA, 'ready after the fix', (d) => d.status?.ready === true, 5_000);
});
test('M-40 (changed), E-29, issue 21: a host annotation naming another namespace is AssociationInvalid naming it; the same-named host of our namespace is not rendered from; fixing it renders at once', async () => {
  const ns = await setup('m3d-foreignhost');
  await createScene(admin(), ns, { without: ['hostAnnotation'] });
  const value = `elsewhere/${HOST}`;
  await admin().api(Metal3MachineResource, ns).mergePatch(M3M, { metadata: { annotations: { 'metal3.io/BareMetalHost': value } } });
  await failsWith(
    ns,
    `Metal3Machine ${M3M}: annotation metal3.io/BareMetalHost names BareMetalHost "${value}" in another namespace; a Metal3Machine can only use hosts of its own namespace "${ns}"`,
    'AssociationInvalid',
  );
  await annotateHost(admin(), ns);
  await dataWhen(admin(), ns, DATA, 'ready after the fix', (d) => d.status?.ready === true && !d.status.errorMessage, 5_000);
});

test.run();
