// What CAPM3 v1.13 added to rendering, on our v1beta1 API: the boot-MAC metadata source (AP-19,
// B2-21), link names and links without a MAC source (AP-20, B2-22), and network data that always
// has its three lists (B2-24, which we already did).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3DataTemplateSpecMetaData, Metal3DataTemplateSpecNetworkData } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { networkDataDocument, RenderError, renderMetaData, renderNetworkData } from './index.ts';
import { type ContextOptions, renderContext, thrown } from './testing.ts';

const test = suite('render/v1.13: boot MAC, link names, optional link MAC, three network lists');

const BOOT = '00:11:22:33:44:55';
const MAC = '12:34:56:78:9A:BC';
const PROVIDER = 'providerid: baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine\n';
const meta = (metaData: Metal3DataTemplateSpecMetaData, options: ContextOptions = {}) => renderMetaData({ clusterName: 'c', metaData }, renderContext(options));
const links = (networkData: Metal3DataTemplateSpecNetworkData, options: ContextOptions = {}) =>
  networkDataDocument({ clusterName: 'c', networkData }, renderContext({ nics: [{ name: 'eth0', mac: 'de:ad:be:ef:00:01' }], ...options })).links;
/** A link as the renderer may meet it without a MAC source (our CRD still requires one, S-7). */
const withoutMac = <T extends { macAddress: unknown }>(link: T): T => {
  const { macAddress: _, ...rest } = link;
  return rest as T;
};

test("B2-21/AP-19: fromBootMAC renders the host's spec.bootMACAddress (upstream's example)", () => {
  assert.is(meta({ fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }] }, { bootMAC: BOOT }), `boot_mac: "${BOOT}"\n${PROVIDER}`);
});

test('B2-21: the boot MAC needs no hardware inventory; interface entries beside it still read the NICs (DR-4)', () => {
  const both = [{ key: 'boot', fromBootMAC: true }, { key: 'nic', interface: 'eth1', fromBootMAC: false }];
  assert.is(meta({ fromHostInterfaces: [{ key: 'boot', fromBootMAC: true }] }, { bootMAC: BOOT, nics: null }), `boot: "${BOOT}"\n${PROVIDER}`);
  const out = meta({ fromHostInterfaces: both }, { bootMAC: BOOT, nics: [{ name: 'eth1', mac: 'aa:bb:cc:dd:ee:01' }] });
  assert.is(out, `boot: "${BOOT}"\nnic: aa:bb:cc:dd:ee:01\n${PROVIDER}`);
});

for (const [what, bootMAC] of [['unset', undefined], ['empty', '']] as const) {
  test(`B2-21: a boot MAC that is ${what} is upstream's error, naming the entry's fromBootMAC`, () => {
    const err = thrown(() => meta({ fromHostInterfaces: [{ key: 'boot_mac', fromBootMAC: true }] }, bootMAC === undefined ? {} : { bootMAC }));
    assert.instance(err, RenderError);
    assert.is((err as RenderError).code, 'NoBootMac');
    assert.is(
      (err as RenderError).message,
      'metadata key "boot_mac": BareMetalHost baremetalns-testns/baremetal-testbaremetalhost spec.bootMACAddress is empty',
    );
    assert.is((err as RenderError).field, 'spec.metaData.fromHostInterfaces[0].fromBootMAC');
  });
}

test('B2-22/AP-20: "name" on ethernet, bond and vlan links when set, absent when unset or ""', () => {
  const out = links({
    links: {
      bonds: [{ id: 'bond0', name: 'bond0', bondMode: 'active-backup', macAddress: { string: MAC } }],
      ethernets: [{ type: 'phy', id: 'e0', name: 'data0', macAddress: { string: MAC } }, { type: 'phy', id: 'e1', name: '', macAddress: { string: MAC } }],
      vlans: [{ id: 'v', vlanID: 10, vlanLink: 'bond0', macAddress: { string: MAC } }],
    },
  });
  assert.equal(out.map((l) => (l as { name?: string }).name), ['bond0', 'data0', undefined, undefined]);
  assert.equal(out[1], { type: 'phy', id: 'e0', mtu: 1500, name: 'data0', ethernet_mac_address: MAC });
});

test('B2-22: the MAC key is emitted only for a link with a MAC source (ethernet, bond: ethernet_mac_address; vlan: vlan_mac_address)', () => {
  const out = renderNetworkData({
    clusterName: 'c',
    networkData: {
      links: {
        bonds: [withoutMac({ id: 'bond0', bondMode: 'active-backup' as const, bondLinks: ['e0'], macAddress: { string: MAC } })],
        ethernets: [withoutMac({ type: 'phy' as const, id: 'e0', name: 'eno1', macAddress: { string: MAC } })],
        vlans: [withoutMac({ id: 'v', vlanID: 10, vlanLink: 'bond0', macAddress: { string: MAC } })],
      },
    },
  }, renderContext());
  assert.not.match(out, 'mac_address');
  assert.match(out, '- id: e0\n  mtu: 1500\n  name: eno1\n  type: phy\n');
  assert.match(out, '  type: vlan\n  vlan_id: 10\n  vlan_link: bond0\n');
});

test('B2-22: a MAC source that is present but does not resolve is still an error (DR-14), named or not', () => {
  const bad = thrown(() =>
    links({ links: { vlans: [{ id: 'v', name: 'vlan10', vlanID: 10, vlanLink: 'e', macAddress: { fromHostInterface: 'eth0', string: 'nope' } }] } })
  );
  assert.is((bad as RenderError).message, 'bad MAC address: nope');
  assert.is((bad as RenderError).field, 'spec.networkData.links.vlans[0].macAddress');
  const empty = thrown(() => links({ links: { ethernets: [{ type: 'phy', id: 'e0', name: 'eno1', macAddress: {} }] } }));
  assert.is((empty as RenderError).code, 'NoMacAddress', 'macAddress: {} keeps our v1.12.7 text (docs/compatibility.md)');
});

test('B2-24: network data always has links, networks and services, empty lists when the template has none', () => {
  assert.is(renderNetworkData({ clusterName: 'c', networkData: {} }, renderContext()), 'links: []\nnetworks: []\nservices: []\n');
  const named = renderNetworkData({
    clusterName: 'c',
    networkData: { links: { ethernets: [{ type: 'phy', id: 'e0', name: 'eno1', macAddress: { string: MAC } }] } },
  }, renderContext());
  assert.is(named, `links:\n- ethernet_mac_address: ${MAC}\n  id: e0\n  mtu: 1500\n  name: eno1\n  type: phy\nnetworks: []\nservices: []\n`);
});

test('B2-24: a route without prefix has the mask of prefix 0; one without services has no DNS entries', () => {
  const [network] = networkDataDocument(
    { clusterName: 'c', networkData: { networks: { ipv4DHCP: [{ id: 'd', link: 'e0', routes: [{ network: '0.0.0.0', gateway: { string: '10.0.0.1' } }] }] } } },
    renderContext(),
  ).networks;
  assert.equal((network as { routes: unknown[] }).routes, [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '10.0.0.1', services: [] }]);
});

test.run();
