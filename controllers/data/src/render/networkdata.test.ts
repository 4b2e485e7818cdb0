// DR-14 … DR-19: links, networks, routes, services, masks; and every error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import type { Metal3DataTemplateSpecNetworkData } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { networkDataDocument, RenderError, type RenderErrorCode, renderNetworkData } from './index.ts';
import { ipv4Mask, ipv6Mask } from './masks.ts';
import { type ContextOptions, renderContext, thrown } from './testing.ts';

const test = suite('render/networkdata: links, networks, services and errors');

const MAC = '12:34:56:78:9A:BC';
const options: ContextOptions = {
  nics: [{ name: 'eth0', mac: 'de:ad:be:ef:00:01' }],
  pools: {
    v4: { address: '192.168.0.10', prefix: 24, gateway: '192.168.0.1', dnsServers: ['192.168.0.53', '192.168.0.54'] },
    v4b: { address: '10.0.0.10', prefix: 8, gateway: '10.0.0.1' },
    v6: { address: '2001:db8::10', prefix: 64, gateway: '2001:db8::1', dnsServers: ['2001:db8::53'] },
    annotated: { address: '172.16.0.10', prefix: 12, gateway: '172.16.0.1' },
    capi: { address: '10.9.0.10', prefix: 16, gateway: '10.9.0.1', dnsServers: [] },
  },
  host: { annotations: { pool: 'annotated', mac: 'aa-bb-cc-dd-ee-ff' } },
};
const doc = (networkData: Metal3DataTemplateSpecNetworkData, extra: ContextOptions = {}) =>
  networkDataDocument({ clusterName: 'c', networkData }, renderContext({ ...options, ...extra }));
const eth = (id: string, macAddress: object = { string: MAC }) => ({ type: 'phy' as const, id, macAddress });

test('DR-15: ethernet types pass through; mtu defaults to the CRD default 1500', () => {
  const types = ['bridge', 'dvs', 'hw_veb', 'hyperv', 'ovs', 'tap', 'vhostuser', 'vif', 'phy'] as const;
  const links = doc({ links: { ethernets: types.map((type, i) => ({ ...eth(`e${i}`), type, ...(i === 0 ? { mtu: 9000 } : {}) })) } }).links;
  assert.equal(links.map((l) => (l as { type: string }).type), [...types]);
  assert.equal(links[0], { type: 'bridge', id: 'e0', mtu: 9000, ethernet_mac_address: MAC });
  assert.is((links[1] as { mtu: number }).mtu, 1500);
});

test('DR-15: links are ordered bonds, ethernets, vlans whatever the spec order', () => {
  const links = doc({
    links: {
      vlans: [{ id: 'v', vlanID: 10, vlanLink: 'e', macAddress: { string: MAC } }],
      ethernets: [eth('e')],
      bonds: [{ id: 'b', bondMode: 'active-backup', macAddress: { string: MAC } }],
    },
  }).links;
  assert.equal(links.map((l) => (l as { id: string }).id), ['b', 'e', 'v']);
});

test('DR-15: bond with unset policy and links (emitted as "" and null) and raw parameters as bond_<name>', () => {
  const out = renderNetworkData(
    {
      clusterName: 'c',
      networkData: {
        links: {
          bonds: [{
            id: 'bond0',
            bondMode: 'balance-rr',
            macAddress: { string: MAC },
            parameters: { miimon: 100, lacp_rate: 'fast', opts: { a: [1, 'yes'] }, none: null },
          }],
        },
      },
    },
    renderContext(options),
  );
  assert.is(
    out,
    [
      'links:',
      '- bond_lacp_rate: fast',
      '  bond_links: null',
      '  bond_miimon: 100',
      '  bond_mode: balance-rr',
      '  bond_none: null',
      '  bond_opts:',
      '    a:',
      '    - 1',
      '    - "yes"',
      '  bond_xmit_hash_policy: ""',
      `  ethernet_mac_address: ${MAC}`,
      '  id: bond0',
      '  mtu: 1500',
      '  type: bond',
      'networks: []',
      'services: []',
      '',
    ].join('\n'),
  );
});

test('DR-15: vlan entry', () => {
  assert.equal(doc({ links: { vlans: [{ id: 'v', vlanID: 4096, vlanLink: 'eth0', mtu: 1400, macAddress: { fromHostInterface: 'eth0' } }] } }).links, [
    { type: 'vlan', id: 'v', mtu: 1400, vlan_mac_address: 'de:ad:be:ef:00:01', vlan_id: 4096, vlan_link: 'eth0' },
  ]);
});

test('DR-14: MAC source precedence string > fromHostInterface > fromAnnotation; "-" separators allowed', () => {
  const mac = (source: object) => (doc({ links: { ethernets: [eth('e', source)] } }).links[0] as { ethernet_mac_address: string }).ethernet_mac_address;
  assert.is(mac({ string: MAC, fromHostInterface: 'eth0', fromAnnotation: { object: 'baremetalhost', annotation: 'mac' } }), MAC);
  assert.is(mac({ fromHostInterface: 'eth0', fromAnnotation: { object: 'baremetalhost', annotation: 'mac' } }), 'de:ad:be:ef:00:01');
  assert.is(mac({ fromAnnotation: { object: 'BAREMETALHOST', annotation: 'mac' } }), 'aa-bb-cc-dd-ee-ff');
  assert.is(mac({ string: 'aa:bb-cc:dd-ee:ff' }), 'aa:bb-cc:dd-ee:ff');
});

test('DR-16: static networks: pool from annotation, else fromPoolRef, else ipAddressFromIPPool; v4 and v6 masks', () => {
  const networks = doc({
    networks: {
      ipv6: [{ id: 'n6', link: 'e', ipAddressFromIPPool: 'v6' }],
      ipv4: [
        {
          id: 'a',
          link: 'e',
          fromPoolAnnotation: { object: 'baremetalhost', annotation: 'pool' },
          fromPoolRef: { name: 'v4', kind: 'IPPool' },
          ipAddressFromIPPool: 'v4b',
        },
        { id: 'b', link: 'e', fromPoolRef: { name: 'v4', kind: 'IPPool' }, ipAddressFromIPPool: 'v4b' },
        { id: 'c', link: 'e', fromPoolRef: { name: '', kind: 'IPPool' }, ipAddressFromIPPool: 'v4b' },
        { id: 'd', link: 'e', fromPoolRef: { name: 'capi', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' } },
      ],
    },
  }).networks;
  assert.equal(networks, [
    { type: 'ipv4', id: 'a', link: 'e', ip_address: '172.16.0.10', netmask: '255.240.0.0', routes: [] },
    { type: 'ipv4', id: 'b', link: 'e', ip_address: '192.168.0.10', netmask: '255.255.255.0', routes: [] },
    { type: 'ipv4', id: 'c', link: 'e', ip_address: '10.0.0.10', netmask: '255.0.0.0', routes: [] },
    { type: 'ipv4', id: 'd', link: 'e', ip_address: '10.9.0.10', netmask: '255.255.0.0', routes: [] },
    { type: 'ipv6', id: 'n6', link: 'e', ip_address: '2001:db8::10', netmask: 'ffff:ffff:ffff:ffff::', routes: [] },
  ]);
});

test('DR-17: route gateway precedence string > annotation > fromPoolRef > fromIPPool > ""; route DNS then pool DNS', () => {
  const route = (gateway: object, services?: object) => ({ network: '10.0.0.0', prefix: 8, gateway, ...(services ? { services } : {}) });
  const routes = (doc({
    networks: {
      ipv4DHCP: [{
        id: 'n',
        link: 'e',
        routes: [
          route({ string: '1.1.1.1', fromIPPool: 'v4' }),
          route({ fromPoolAnnotation: { object: 'baremetalhost', annotation: 'pool' }, fromPoolRef: { name: 'v4', kind: '' }, fromIPPool: 'v4b' }),
          route({ fromPoolRef: { name: 'v4', kind: '' }, fromIPPool: 'v4b' }),
          route({ fromPoolRef: { name: '', kind: '' }, fromIPPool: 'v4b' }),
          route({}, { dns: ['9.9.9.9'], dnsFromIPPool: 'v4' }),
          route({ fromIPPool: 'capi' }, { dnsFromIPPool: 'capi' }),
        ] as never,
      }],
    },
  }).networks[0] as { routes: Array<{ gateway: string; services: unknown[] }> }).routes;
  assert.equal(routes.map((r) => r.gateway), ['1.1.1.1', '172.16.0.1', '192.168.0.1', '10.0.0.1', '', '10.9.0.1']);
  assert.equal(routes[4]?.services, [{ type: 'dns', address: '9.9.9.9' }, { type: 'dns', address: '192.168.0.53' }, { type: 'dns', address: '192.168.0.54' }]);
  assert.equal(routes[5]?.services, [], 'CAPI pools carry no DNS servers');
});

test('DR-18: top-level services: literal DNS, then the pool DNS servers', () => {
  assert.equal(doc({ services: { dns: ['8.8.8.8'], dnsFromIPPool: 'v6' } }).services, [
    { type: 'dns', address: '8.8.8.8' },
    { type: 'dns', address: '2001:db8::53' },
  ]);
  assert.equal(doc({}), { links: [], networks: [], services: [] }, 'empty networkData: three empty lists');
});

test('DR-19: masks', () => {
  const v4: Array<[number, string]> = [
    [0, '0.0.0.0'],
    [1, '128.0.0.0'],
    [8, '255.0.0.0'],
    [12, '255.240.0.0'],
    [16, '255.255.0.0'],
    [24, '255.255.255.0'],
    [25, '255.255.255.128'],
    [31, '255.255.255.254'],
    [32, '255.255.255.255'],
  ];
  for (const [prefix, text] of v4) assert.is(ipv4Mask(prefix), text, `v4 /${prefix}`);
  const v6: Array<[number, string]> = [
    [0, '::'],
    [1, '8000::'],
    [16, 'ffff::'],
    [17, 'ffff:8000::'],
    [64, 'ffff:ffff:ffff:ffff::'],
    [65, 'ffff:ffff:ffff:ffff:8000::'],
    [96, 'ffff:ffff:ffff:ffff:ffff:ffff::'],
    [112, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:0'],
    [127, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe'],
    [128, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ];
  for (const [prefix, text] of v6) assert.is(ipv6Mask(prefix), text, `v6 /${prefix}`);
  for (const bad of [-1, 33, 1.5]) assert.is(ipv4Mask(bad), undefined, `v4 /${bad}`);
  for (const bad of [-1, 129]) assert.is(ipv6Mask(bad), undefined, `v6 /${bad}`);
});

test('DR-23: the rendered document parses back to the document', () => {
  const networkData: Metal3DataTemplateSpecNetworkData = {
    links: { ethernets: [eth('e')], bonds: [{ id: 'b', bondMode: '802.3ad', bondLinks: ['e'], macAddress: { string: MAC } }] },
    networks: { ipv6: [{ id: 'n', link: 'b', ipAddressFromIPPool: 'v6', routes: [{ network: '::', prefix: 0, gateway: { fromIPPool: 'v6' } }] }] },
    services: { dnsFromIPPool: 'v4' },
  };
  const out = renderNetworkData({ clusterName: 'c', networkData }, renderContext(options));
  assert.equal(parse(out), JSON.parse(JSON.stringify(doc(networkData))));
});

const errors: Array<[string, Metal3DataTemplateSpecNetworkData, ContextOptions, RenderErrorCode, string, string]> = [
  ['no MAC source', { links: { ethernets: [eth('e', {})] } }, {}, 'NoMacAddress', 'no MAC address given', 'spec.networkData.links.ethernets[0].macAddress'],
  [
    'bad literal MAC',
    { links: { bonds: [{ id: 'b', bondMode: '802.3ad', macAddress: { string: '12:34:56:78:9A' } }] } },
    {},
    'BadMacAddress',
    'bad MAC address: 12:34:56:78:9A',
    'spec.networkData.links.bonds[0].macAddress',
  ],
  [
    'bad MAC from the host',
    { links: { vlans: [{ id: 'v', vlanID: 1, vlanLink: 'e', macAddress: { fromHostInterface: 'eth0' } }] } },
    { nics: [{ name: 'eth0', mac: 'zz:zz:zz:zz:zz:zz' }] },
    'BadMacAddress',
    'bad MAC address: zz:zz:zz:zz:zz:zz',
    'spec.networkData.links.vlans[0].macAddress',
  ],
  [
    'missing MAC annotation',
    { links: { ethernets: [eth('a'), eth('e', { fromAnnotation: { object: 'machine', annotation: 'mac' } })] } },
    {},
    'BadMacAddress',
    'bad MAC address: ',
    'spec.networkData.links.ethernets[1].macAddress',
  ],
  [
    'unknown NIC',
    { links: { ethernets: [eth('e', { fromHostInterface: 'eth7' })] } },
    {},
    'NicNotFound',
    'NIC name not found eth7',
    'spec.networkData.links.ethernets[0].macAddress.fromHostInterface',
  ],
  [
    'MAC annotation on an unknown object',
    { links: { ethernets: [eth('e', { fromAnnotation: { object: 'cluster', annotation: 'mac' } })] } },
    {},
    'UnknownObjectType',
    'Unknown object type',
    'spec.networkData.links.ethernets[0].macAddress.fromAnnotation.object',
  ],
  [
    'bond parameters shadowing structured fields (E-45: names in spec order)',
    {
      links: { bonds: [{ id: 'bond0', bondMode: '802.3ad', macAddress: { string: MAC }, parameters: { links: ['x'], miimon: 1, mode: 'x' } }] },
    },
    {},
    'IllegalBondParameters',
    'illegal params "links", "mode" into bond params blob into link id=bond0',
    'spec.networkData.links.bonds[0].parameters',
  ],
  [
    'static network pool without allocation',
    { networks: { ipv4: [{ id: 'n', link: 'e', fromPoolRef: { name: 'gone', kind: 'IPPool' } }] } },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.networkData.networks.ipv4[0].fromPoolRef.name',
  ],
  [
    'annotation naming a pool without allocation',
    { networks: { ipv6: [{ id: 'n', link: 'e', ipAddressFromIPPool: 'v6', fromPoolAnnotation: { object: 'machine', annotation: 'pool' } }] } },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.networkData.networks.ipv6[0].fromPoolAnnotation',
  ],
  [
    'route gateway pool without allocation',
    { networks: { ipv6SLAAC: [{ id: 'n', link: 'e', routes: [{ network: '::', gateway: { fromPoolRef: { name: 'gone', kind: '' } } }] }] } },
    {},
    'PoolNotFound',
    'Failed to fetch pool from cache',
    'spec.networkData.networks.ipv6SLAAC[0].routes[0].gateway.fromPoolRef.name',
  ],
  [
    'route DNS pool without allocation',
    {
      networks: {
        ipv4: [{ id: 'n', link: 'e', ipAddressFromIPPool: 'v4', routes: [{ network: '0.0.0.0', gateway: {}, services: { dnsFromIPPool: 'gone' } }] }],
      },
    },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.networkData.networks.ipv4[0].routes[0].services.dnsFromIPPool',
  ],
  [
    'service DNS pool without allocation',
    { services: { dnsFromIPPool: 'gone' } },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.networkData.services.dnsFromIPPool',
  ],
  [
    'route prefix beyond 32 for IPv4',
    { networks: { ipv4DHCP: [{ id: 'n', link: 'e', routes: [{ network: '10.0.0.0', prefix: 33, gateway: {} }] }] } },
    {},
    'BadPrefix',
    'prefix 33 is not between 0 and 32',
    'spec.networkData.networks.ipv4DHCP[0].routes[0].prefix',
  ],
  [
    'pool prefix beyond 128 for IPv6',
    { networks: { ipv6: [{ id: 'n', link: 'e', ipAddressFromIPPool: 'odd' }] } },
    { pools: { odd: { address: '::1', prefix: 200 } } },
    'BadPrefix',
    'prefix 200 is not between 0 and 128',
    'spec.networkData.networks.ipv6[0].ipAddressFromIPPool',
  ],
];

for (const [name, networkData, extra, code, message, field] of errors) {
  test(`error: ${name} ⇒ ${code} at ${field}`, () => {
    const err = thrown(() => renderNetworkData({ clusterName: 'c', networkData }, renderContext({ ...options, ...extra })));
    assert.instance(err, RenderError);
    assert.equal([(err as RenderError).code, (err as RenderError).message, (err as RenderError).field], [code, message, field]);
  });
}

test('error: a template without networkData is not rendered (D-9: no network-data Secret)', () => {
  assert.is((thrown(() => renderNetworkData({ clusterName: 'c' }, renderContext())) as RenderError).code, 'NotRequested');
});

test('D-13: the first error wins and nothing is returned (links before networks before services)', () => {
  const err = thrown(() =>
    renderNetworkData(
      {
        clusterName: 'c',
        networkData: {
          links: { ethernets: [eth('e', {})] },
          networks: { ipv4: [{ id: 'n', link: 'e', ipAddressFromIPPool: 'gone' }] },
          services: { dnsFromIPPool: 'gone' },
        },
      },
      renderContext(options),
    )
  ) as RenderError;
  assert.is(err.code, 'NoMacAddress');
});

test.run();
