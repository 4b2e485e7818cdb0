// Golden tests: research §5.6 vectors V-1 … V-6, byte for byte where the
// vector gives bytes, and as parsed YAML otherwise.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { metaDataMap, RenderError, renderMetaData, renderNetworkData } from './index.ts';
import { renderContext, thrown } from './testing.ts';
import { ipv4Mask, ipv6Mask } from './masks.ts';

const test = suite('render vectors (research §5.6)');

const spec = (s: Omit<Metal3DataTemplateSpec, 'clusterName'>): Metal3DataTemplateSpec => ({ clusterName: 'cluster', ...s });
const objectsWith = (prefix: string, key: 'label' | 'annotation') =>
  (['metal3machine', 'metal3machine', 'metal3machine', 'machine', 'baremetalhost'] as const).map((object, i) => ({
    key: `${prefix}-${i + 1}`,
    object,
    [key]: ['Doesnotexist', 'Empty', 'M3M', 'Machine', 'BMH'][i] as string,
  }));

const v1Spec = spec({
  metaData: {
    strings: [{ key: 'String-1', value: 'String-1' }],
    objectNames: [
      { key: 'ObjectName-1', object: 'machine' },
      { key: 'ObjectName-2', object: 'metal3machine' },
      { key: 'ObjectName-3', object: 'baremetalhost' },
    ],
    namespaces: [{ key: 'Namespace-1' }],
    indexes: [{ key: 'Index-1', offset: 10, step: 2, prefix: 'abc', suffix: 'def' }, { key: 'Index-2' }],
    ipAddressesFromIPPool: [
      { key: 'Address-1', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Address-2', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Address-3', name: 'bcde', apiGroup: '', kind: '' },
    ],
    prefixesFromIPPool: [
      { key: 'Prefix-1', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Prefix-2', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Prefix-3', name: 'bcde', apiGroup: '', kind: '' },
    ],
    gatewaysFromIPPool: [
      { key: 'Gateway-1', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Gateway-2', name: 'abcd', apiGroup: '', kind: '' },
      { key: 'Gateway-3', name: 'bcde', apiGroup: '', kind: '' },
    ],
    fromHostInterfaces: [{ key: 'Mac-1', interface: 'eth1' }],
    fromLabels: objectsWith('Label', 'label') as never,
    fromAnnotations: objectsWith('Annotation', 'annotation') as never,
  },
});

const v1Context = (overrides: Parameters<typeof renderContext>[0] = {}) =>
  renderContext({
    index: 2,
    m3m: { labels: { M3M: 'Metal3MachineLabel', Empty: '' }, annotations: { M3M: 'Metal3MachineAnnotation', Empty: '' } },
    machine: { labels: { Machine: 'MachineLabel' }, annotations: { Machine: 'MachineAnnotation' } },
    host: { labels: { BMH: 'BMHLabel' }, annotations: { BMH: 'BMHAnnotation' } },
    nics: [{ name: 'eth0', mac: 'XX:XX:XX:XX:XX:XX' }, {}, { name: 'eth1', mac: 'XX:XX:XX:XX:XX:YY' }],
    pools: {
      abcd: { address: '192.168.0.14', prefix: 25, gateway: '192.168.0.1' },
      bcde: { address: '192.168.1.14', prefix: 26, gateway: '192.168.1.1' },
    },
    ...overrides,
  });

test('V-1: metadata full example renders every item type, in YAML v2 key order', () => {
  const expected = [
    'Address-1: 192.168.0.14',
    'Address-2: 192.168.0.14',
    'Address-3: 192.168.1.14',
    'Annotation-1: ""',
    'Annotation-2: ""',
    'Annotation-3: Metal3MachineAnnotation',
    'Annotation-4: MachineAnnotation',
    'Annotation-5: BMHAnnotation',
    'Gateway-1: 192.168.0.1',
    'Gateway-2: 192.168.0.1',
    'Gateway-3: 192.168.1.1',
    'Index-1: abc14def',
    'Index-2: "2"',
    'Label-1: ""',
    'Label-2: ""',
    'Label-3: Metal3MachineLabel',
    'Label-4: MachineLabel',
    'Label-5: BMHLabel',
    'Mac-1: XX:XX:XX:XX:XX:YY',
    'Namespace-1: baremetalns-testns',
    'ObjectName-1: baremetal-testmachine',
    'ObjectName-2: baremetal-testmetal3machine',
    'ObjectName-3: baremetal-testbaremetalhost',
    'Prefix-1: "25"',
    'Prefix-2: "25"',
    'Prefix-3: "26"',
    'String-1: String-1',
    'providerid: baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine',
    '',
  ].join('\n');
  assert.fixture(renderMetaData(v1Spec, v1Context()), expected);
});

test('V-1 negatives: unknown NIC, pool without allocation, unknown object type', () => {
  const noEth2 = spec({ metaData: { fromHostInterfaces: [{ key: 'Mac-1', interface: 'eth2' }] } });
  const nic = thrown(() => renderMetaData(noEth2, v1Context()));
  assert.instance(nic, RenderError);
  assert.is((nic as RenderError).message, 'NIC name not found eth2');
  assert.is((nic as RenderError).field, 'spec.metaData.fromHostInterfaces[0].interface');

  for (const list of ['ipAddressesFromIPPool', 'prefixesFromIPPool', 'gatewaysFromIPPool'] as const) {
    const s = spec({ metaData: { [list]: [{ key: 'k', name: 'cdef', apiGroup: '', kind: '' }] } });
    const err = thrown(() => renderMetaData(s, v1Context())) as RenderError;
    assert.is(err.message, 'Pool not found in cache', list);
    assert.is(err.field, `spec.metaData.${list}[0].name`);
  }
  const withObject = (list: 'objectNames' | 'fromLabels' | 'fromAnnotations') =>
    spec({ metaData: { [list]: [{ key: 'k', object: 'baremetalhost2', label: 'l', annotation: 'a' }] } as never });
  for (const list of ['objectNames', 'fromLabels', 'fromAnnotations'] as const) {
    const err = thrown(() => renderMetaData(withObject(list), v1Context())) as RenderError;
    assert.is(err.message, 'Unknown object type', list);
    assert.is(err.field, `spec.metaData.${list}[0].object`);
  }
  const none = thrown(() => renderMetaData(spec({}), v1Context())) as RenderError;
  assert.is(none.code, 'NotRequested', 'no metaData: nothing is rendered');
});

const v2Spec = spec({
  metaData: { strings: [{ key: 'String-1', value: 'String-1' }] },
  networkData: {
    links: { ethernets: [{ type: 'phy', id: 'eth0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' } }] },
  },
});

test('V-2: exact Secret bytes for metaData and networkData', () => {
  const ctx = renderContext();
  assert.fixture(
    renderMetaData(v2Spec, ctx),
    'String-1: String-1\nproviderid: baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine\n',
  );
  assert.fixture(
    renderNetworkData(v2Spec, ctx),
    'links:\n- ethernet_mac_address: 12:34:56:78:9A:BC\n  id: eth0\n  mtu: 1500\n  type: phy\nnetworks: []\nservices: []\n',
  );
});

const v3Spec = spec({
  networkData: {
    links: { ethernets: [{ type: 'phy', id: 'eth0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' } }] },
    networks: {
      ipv4: [
        {
          id: 'abc',
          link: 'def',
          ipAddressFromIPPool: 'abc',
          routes: [{ network: '10.0.0.0', prefix: 16, gateway: { string: '192.168.1.1' }, services: { dns: ['8.8.8.8'] } }],
        },
      ],
    },
    services: { dns: ['8.8.8.8', '2001::8888'] },
  },
});

test('V-3: network data full example (bytes and parsed form)', () => {
  const out = renderNetworkData(v3Spec, renderContext({ pools: { abc: { address: '192.168.0.14', prefix: 24 } } }));
  assert.fixture(
    out,
    [
      'links:',
      '- ethernet_mac_address: 12:34:56:78:9A:BC',
      '  id: eth0',
      '  mtu: 1500',
      '  type: phy',
      'networks:',
      '- id: abc',
      '  ip_address: 192.168.0.14',
      '  link: def',
      '  netmask: 255.255.255.0',
      '  routes:',
      '  - gateway: 192.168.1.1',
      '    netmask: 255.255.0.0',
      '    network: 10.0.0.0',
      '    services:',
      '    - address: 8.8.8.8',
      '      type: dns',
      '  type: ipv4',
      'services:',
      '- address: 8.8.8.8',
      '  type: dns',
      '- address: 2001::8888',
      '  type: dns',
      '',
    ].join('\n'),
  );
  assert.equal(parse(out), {
    links: [{ ethernet_mac_address: '12:34:56:78:9A:BC', id: 'eth0', mtu: 1500, type: 'phy' }],
    networks: [
      {
        id: 'abc',
        ip_address: '192.168.0.14',
        link: 'def',
        netmask: '255.255.255.0',
        routes: [{ gateway: '192.168.1.1', netmask: '255.255.0.0', network: '10.0.0.0', services: [{ address: '8.8.8.8', type: 'dns' }] }],
        type: 'ipv4',
      },
    ],
    services: [
      { address: '8.8.8.8', type: 'dns' },
      { address: '2001::8888', type: 'dns' },
    ],
  });
});

test('V-3 negatives: MAC from a host without hardware details, ipv4 network without allocation', () => {
  const fromHost = spec({
    networkData: { links: { ethernets: [{ type: 'phy', id: 'eth0', macAddress: { fromHostInterface: 'eth0' } }] } },
  });
  const err = thrown(() => renderNetworkData(fromHost, renderContext({ nics: null }))) as RenderError;
  assert.is(err.message, 'NICs list not populated');
  assert.is(err.field, 'spec.networkData.links.ethernets[0].macAddress.fromHostInterface');
  const pool = thrown(() => renderNetworkData(v3Spec, renderContext())) as RenderError;
  assert.is(pool.message, 'Pool not found in cache');
  assert.is(pool.field, 'spec.networkData.networks.ipv4[0].ipAddressFromIPPool');
});

const v6Route = { network: '2001::', prefix: 64, gateway: { fromIPPool: 'abc' }, services: { dns: ['2001::8888'] } };
const v6Pools = { abc: { address: 'fe80::2001:38', prefix: 96, gateway: 'fe80::2001:1' } };

test('V-4: IPv6 static network; masks and networks ending in "::" are single-quoted', () => {
  const s = spec({ networkData: { networks: { ipv6: [{ id: 'abc', link: 'def', ipAddressFromIPPool: 'abc', routes: [v6Route] }] } } });
  assert.fixture(
    renderNetworkData(s, renderContext({ pools: v6Pools })),
    [
      'links: []',
      'networks:',
      '- id: abc',
      '  ip_address: fe80::2001:38',
      '  link: def',
      "  netmask: 'ffff:ffff:ffff:ffff:ffff:ffff::'",
      '  routes:',
      '  - gateway: fe80::2001:1',
      "    netmask: 'ffff:ffff:ffff:ffff::'",
      "    network: '2001::'",
      '    services:',
      '    - address: 2001::8888',
      '      type: dns',
      '  type: ipv6',
      'services: []',
      '',
    ].join('\n'),
  );
});

test('V-4: DHCP and SLAAC networks carry type, id, link and routes only', () => {
  const v4Route = { network: '10.0.0.0', prefix: 16, gateway: { string: '192.168.1.1' } };
  const v6 = { ...v6Route, gateway: { string: 'fe80::2001:1' } };
  const s = spec({
    networkData: {
      networks: {
        ipv6SLAAC: [{ id: 'abc', link: 'def', routes: [v6] }],
        ipv4DHCP: [{ id: 'abc', link: 'def', routes: [v4Route] }],
        ipv6DHCP: [{ id: 'abc', link: 'def', routes: [v6] }],
      },
    },
  });
  const parsed = parse(renderNetworkData(s, renderContext({ pools: v6Pools }))) as { networks: unknown[] };
  const v6Out = { gateway: 'fe80::2001:1', netmask: 'ffff:ffff:ffff:ffff::', network: '2001::', services: [{ address: '2001::8888', type: 'dns' }] };
  assert.equal(parsed.networks, [
    { id: 'abc', link: 'def', routes: [{ gateway: '192.168.1.1', netmask: '255.255.0.0', network: '10.0.0.0', services: [] }], type: 'ipv4_dhcp' },
    { id: 'abc', link: 'def', routes: [v6Out], type: 'ipv6_dhcp' },
    { id: 'abc', link: 'def', routes: [v6Out], type: 'ipv6_slaac' },
  ]);
});

test('V-4: a network whose pool is named by a BareMetalHost annotation', () => {
  const s = spec({
    networkData: {
      networks: {
        ipv4: [{ id: 'net1', link: 'eth0', fromPoolAnnotation: { object: 'baremetalhost', annotation: 'ippool.metal3.io/test-network' }, routes: [] }],
      },
    },
  });
  const ctx = renderContext({
    host: { annotations: { 'ippool.metal3.io/test-network': 'test-pool' } },
    pools: { 'test-pool': { address: '192.168.10.20', prefix: 24 } },
  });
  const parsed = parse(renderNetworkData(s, ctx)) as { networks: unknown[] };
  assert.equal(parsed.networks, [{ id: 'net1', ip_address: '192.168.10.20', link: 'eth0', netmask: '255.255.255.0', routes: [], type: 'ipv4' }]);
});

test('V-5: IPv4 routes: literal, pool and pool-reference gateways, DNS from the pool; no allocation ⇒ error', () => {
  const routes = [
    { network: '192.168.0.0', prefix: 24, gateway: { string: '192.168.1.1' } },
    { network: '10.0.0.0', prefix: 16, gateway: { fromIPPool: 'abc' }, services: { dns: ['8.8.8.8', '8.8.4.4'], dnsFromIPPool: 'abc' } },
    { gateway: { fromPoolRef: { name: 'abc', kind: '' } } },
  ];
  const s = spec({ networkData: { networks: { ipv4DHCP: [{ id: 'n', link: 'l', routes: routes as never }] } } });
  const ctx = renderContext({ pools: { abc: { address: '192.168.2.14', prefix: 24, gateway: '192.168.2.1', dnsServers: ['1.1.1.1'] } } });
  const out = renderNetworkData(s, ctx);
  const parsed = parse(out) as { networks: Array<{ routes: unknown }> };
  assert.equal(parsed.networks[0]?.routes, [
    { gateway: '192.168.1.1', netmask: '255.255.255.0', network: '192.168.0.0', services: [] },
    {
      gateway: '192.168.2.1',
      netmask: '255.255.0.0',
      network: '10.0.0.0',
      services: [
        { address: '8.8.8.8', type: 'dns' },
        { address: '8.8.4.4', type: 'dns' },
        { address: '1.1.1.1', type: 'dns' },
      ],
    },
    { gateway: '192.168.2.1', netmask: '0.0.0.0', network: '', services: [] },
  ]);
  assert.ok(out.includes('\n  - gateway: 192.168.2.1\n    netmask: 0.0.0.0\n    network: ""\n    services: []\n'), 'empty network is ""');
  const err = thrown(() => renderNetworkData(s, renderContext())) as RenderError;
  assert.is(err.message, 'Failed to fetch pool from cache');
  assert.is(err.field, 'spec.networkData.networks.ipv4DHCP[0].routes[1].gateway.fromIPPool');
});

test('V-5: IPv6 twin: /96 mask and an empty network with mask "::"', () => {
  const routes = [
    { network: '2001::0', prefix: 96, gateway: { string: '2001::1' } },
    { gateway: { fromPoolRef: { name: 'abc', kind: '' } } },
  ];
  const s = spec({ networkData: { networks: { ipv6DHCP: [{ id: 'n', link: 'l', routes: routes as never }] } } });
  const out = renderNetworkData(s, renderContext({ pools: { abc: { address: 'fe80::2', prefix: 64, gateway: 'fe80::1' } } }));
  const parsed = parse(out) as { networks: Array<{ routes: unknown }> };
  assert.equal(parsed.networks[0]?.routes, [
    { gateway: '2001::1', netmask: 'ffff:ffff:ffff:ffff:ffff:ffff::', network: '2001::0', services: [] },
    { gateway: 'fe80::1', netmask: '::', network: '', services: [] },
  ]);
  assert.ok(out.includes("netmask: '::'\n"), 'mask :: single-quoted');
});

test('V-6: bond and vlan links', () => {
  const s = spec({
    networkData: {
      links: {
        vlans: [{ vlanID: 2222, id: 'bond0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' }, vlanLink: 'eth0' }],
        bonds: [
          {
            bondMode: '802.3ad',
            bondXmitHashPolicy: 'layer3+4',
            id: 'bond0',
            mtu: 1500,
            macAddress: { string: '12:34:56:78:9A:BC' },
            bondLinks: ['eth0'],
          },
        ],
      },
    },
  });
  const out = renderNetworkData(s, renderContext());
  assert.fixture(
    out,
    [
      'links:',
      '- bond_links:',
      '  - eth0',
      '  bond_mode: 802.3ad',
      '  bond_xmit_hash_policy: layer3+4',
      '  ethernet_mac_address: 12:34:56:78:9A:BC',
      '  id: bond0',
      '  mtu: 1500',
      '  type: bond',
      '- id: bond0',
      '  mtu: 1500',
      '  type: vlan',
      '  vlan_id: 2222',
      '  vlan_link: eth0',
      '  vlan_mac_address: 12:34:56:78:9A:BC',
      'networks: []',
      'services: []',
      '',
    ].join('\n'),
  );
});

test('V-6: MAC sources: host interface, annotations on each object; unknown object, missing annotation and bad MAC fail', () => {
  const nics = [{ name: 'eth0', mac: '12:34:56:78:9A:BC' }, {}, { name: 'eth1', mac: 'DE:F0:12:34:56:78' }];
  const link = (macAddress: object) => spec({ networkData: { links: { ethernets: [{ type: 'phy', id: 'e', macAddress }] } } });
  const mac = (macAddress: object, ctx = renderContext({ nics })) =>
    (parse(renderNetworkData(link(macAddress), ctx)) as { links: Array<{ ethernet_mac_address: string }> }).links[0]?.ethernet_mac_address;
  assert.is(mac({ fromHostInterface: 'eth1' }), 'DE:F0:12:34:56:78');
  const annotated = { annotations: { 'mac-address': '12:34:56:78:9A:BD' } };
  const ctx = renderContext({ m3m: annotated, machine: annotated, host: annotated });
  for (const object of ['machine', 'metal3machine', 'baremetalhost']) {
    assert.is(mac({ fromAnnotation: { object, annotation: 'mac-address' } }, ctx), '12:34:56:78:9A:BD', object);
  }
  const failures: Array<[object, string, string]> = [
    [{ fromAnnotation: { object: 'wrflbrmpfd', annotation: 'mac-address' } }, 'Unknown object type', '.fromAnnotation.object'],
    [{ fromAnnotation: { object: 'machine', annotation: 'nope' } }, 'bad MAC address: ', ''],
    [{ string: 'XX:XX:XX:XX:XX:XX' }, 'bad MAC address: XX:XX:XX:XX:XX:XX', ''],
  ];
  for (const [source, message, suffix] of failures) {
    const err = thrown(() => renderNetworkData(link(source), ctx)) as RenderError;
    assert.is(err.message, message);
    assert.is(err.field, `spec.networkData.links.ethernets[0].macAddress${suffix}`);
  }
});

test('V-6: masks', () => {
  assert.is(ipv4Mask(24), '255.255.255.0');
  assert.is(ipv4Mask(16), '255.255.0.0');
  assert.is(ipv6Mask(64), 'ffff:ffff:ffff:ffff::');
  assert.is(ipv6Mask(96), 'ffff:ffff:ffff:ffff:ffff:ffff::');
});

test('V-1 map: providerid overrides a user item of that name (DR-12)', () => {
  const s = spec({ metaData: { strings: [{ key: 'providerid', value: 'mine' }] } });
  assert.is(metaDataMap(s, renderContext()).providerid, 'baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine');
});

test.run();
