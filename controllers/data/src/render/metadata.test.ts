// DR-4 … DR-13: one table row per metadata item type, and per error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3DataTemplateSpecMetaData } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { metaDataMap, RenderError, type RenderErrorCode, renderMetaData } from './index.ts';
import { type ContextOptions, renderContext, thrown } from './testing.ts';

const test = suite('render/metadata: item types and errors');

const PROVIDER_ID = 'baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine';
const ctxOptions: ContextOptions = {
  index: 3,
  nics: [{ name: 'eth0', mac: 'aa:bb:cc:dd:ee:ff' }, { name: 'eth0', mac: 'second' }, { name: 'odd', mac: 'not-a-mac' }],
  pools: {
    v4: { address: '10.0.0.5', prefix: 24, gateway: '10.0.0.1', dnsServers: ['1.1.1.1'] },
    nogw: { address: '10.1.0.5', prefix: 16 },
    capi: { address: '10.2.0.5', prefix: 8, gateway: '10.2.0.1' },
  },
  m3m: { labels: { role: 'worker' }, annotations: { note: 'm3m' } },
  machine: { labels: { role: 'machine-role' }, annotations: { note: 'machine' } },
  host: { labels: { rack: 'r1' }, annotations: { note: 'host' } },
};
const pool = (key: string, name: string) => ({ key, name, apiGroup: '', kind: '' });

const rows: Array<[string, Metal3DataTemplateSpecMetaData, Record<string, string>]> = [
  ['DR-11 strings: the literal value', { strings: [{ key: 's', value: 'hello' }] }, { s: 'hello' }],
  ['DR-9 namespaces: the Metal3Data namespace', { namespaces: [{ key: 'ns' }] }, { ns: 'baremetalns-testns' }],
  ['DR-8 indexes: offset + index × step between prefix and suffix', { indexes: [{ key: 'i', offset: 10, step: 5, prefix: 'node-', suffix: '.lan' }] }, {
    i: 'node-25.lan',
  }],
  ['DR-8 indexes: step 0 counts as 1, no offset', { indexes: [{ key: 'i', step: 0 }] }, { i: '3' }],
  ['DR-8 indexes: negative results keep their sign', { indexes: [{ key: 'i', offset: -10, step: 2 }] }, { i: '-4' }],
  ['DR-10 objectNames: each object', {
    objectNames: [{ key: 'a', object: 'metal3machine' }, { key: 'b', object: 'machine' }, { key: 'c', object: 'baremetalhost' }],
  }, { a: 'baremetal-testmetal3machine', b: 'baremetal-testmachine', c: 'baremetal-testbaremetalhost' }],
  ['DR-10 objects compare case-insensitively', { objectNames: [{ key: 'a', object: 'BareMetalHost' as 'baremetalhost' }] }, {
    a: 'baremetal-testbaremetalhost',
  }],
  ['DR-10 fromLabels: value or ""', {
    fromLabels: [{ key: 'a', object: 'metal3machine', label: 'role' }, { key: 'b', object: 'machine', label: 'role' }, {
      key: 'c',
      object: 'baremetalhost',
      label: 'rack',
    }, { key: 'd', object: 'baremetalhost', label: 'none' }],
  }, { a: 'worker', b: 'machine-role', c: 'r1', d: '' }],
  ['DR-10 fromAnnotations: value or ""', {
    fromAnnotations: [{ key: 'a', object: 'metal3machine', annotation: 'note' }, { key: 'b', object: 'machine', annotation: 'note' }, {
      key: 'c',
      object: 'baremetalhost',
      annotation: 'note',
    }, { key: 'd', object: 'machine', annotation: 'none' }],
  }, { a: 'm3m', b: 'machine', c: 'host', d: '' }],
  ['DR-4 fromHostInterfaces: first NIC of that name, MAC not validated', {
    fromHostInterfaces: [{ key: 'a', interface: 'eth0' }, { key: 'b', interface: 'odd' }],
  }, { a: 'aa:bb:cc:dd:ee:ff', b: 'not-a-mac' }],
  ['DR-5 ipAddressesFromIPPool', {
    ipAddressesFromIPPool: [pool('a', 'v4'), { key: 'b', name: 'capi', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }],
  }, { a: '10.0.0.5', b: '10.2.0.5' }],
  ['DR-6 prefixesFromIPPool: decimal prefix length', { prefixesFromIPPool: [pool('a', 'v4'), pool('b', 'capi')] }, { a: '24', b: '8' }],
  ['DR-7 gatewaysFromIPPool: gateway, or "" without one', { gatewaysFromIPPool: [pool('a', 'v4'), pool('b', 'nogw')] }, { a: '10.0.0.1', b: '' }],
  ['DR-13/E-26 dnsServersFromIPPool renders nothing', { dnsServersFromIPPool: [pool('dns', 'v4')] }, {}],
  ['later item types overwrite earlier ones with the same key (strings last)', {
    fromHostInterfaces: [{ key: 'k', interface: 'eth0' }],
    indexes: [{ key: 'k' }],
    strings: [{ key: 'k', value: 'wins' }],
  }, { k: 'wins' }],
  ['within one list the last entry wins', { strings: [{ key: 'k', value: 'first' }, { key: 'k', value: 'second' }] }, { k: 'second' }],
  ['DR-12 a user providerid is overridden', { strings: [{ key: 'providerid', value: 'mine' }] }, {}],
  ['empty metaData renders only providerid', {}, {}],
];

for (const [name, metaData, expected] of rows) {
  test(name, () => {
    const got = metaDataMap({ clusterName: 'c', metaData }, renderContext(ctxOptions));
    assert.equal({ ...got }, { ...expected, providerid: PROVIDER_ID });
  });
}

test('DR-12: a providerID from the context replaces the default', () => {
  const out = renderMetaData({ clusterName: 'c', metaData: {} }, renderContext({ providerID: 'metal3://ns/host/m3m' }));
  assert.is(out, 'providerid: metal3://ns/host/m3m\n');
});

test('DR-23: metadata values that YAML would read as other types are quoted', () => {
  const out = renderMetaData(
    {
      clusterName: 'c',
      metaData: { strings: [{ key: 'a', value: 'yes' }, { key: 'b', value: '00:11:22:33:44:55' }, { key: 'c', value: 'x: y' }, { key: 'd', value: 'l1\nl2' }] },
    },
    renderContext(),
  );
  assert.is(
    out,
    'a: "yes"\nb: "00:11:22:33:44:55"\nc: \'x: y\'\nd: |-\n  l1\n  l2\nproviderid: baremetalns-testns/baremetal-testbaremetalhost/baremetal-testmetal3machine\n',
  );
});

const errorRows: Array<[string, Metal3DataTemplateSpecMetaData, ContextOptions, RenderErrorCode, string, string]> = [
  [
    'host without hardware details',
    { fromHostInterfaces: [{ key: 'k', interface: 'eth0' }] },
    { nics: null },
    'NicsNotPopulated',
    'NICs list not populated',
    'spec.metaData.fromHostInterfaces[0].interface',
  ],
  [
    'unknown NIC',
    { fromHostInterfaces: [{ key: 'a', interface: 'eth0' }, { key: 'k', interface: 'eth9' }] },
    {},
    'NicNotFound',
    'NIC name not found eth9',
    'spec.metaData.fromHostInterfaces[1].interface',
  ],
  [
    'address from a pool without allocation',
    { ipAddressesFromIPPool: [pool('k', 'missing')] },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.metaData.ipAddressesFromIPPool[0].name',
  ],
  [
    'prefix from a pool without allocation',
    { prefixesFromIPPool: [pool('k', 'v4'), pool('k', 'missing')] },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.metaData.prefixesFromIPPool[1].name',
  ],
  [
    'gateway from a pool without allocation',
    { gatewaysFromIPPool: [pool('k', 'missing')] },
    {},
    'PoolNotFound',
    'Pool not found in cache',
    'spec.metaData.gatewaysFromIPPool[0].name',
  ],
  [
    'unknown object in objectNames',
    { objectNames: [{ key: 'k', object: 'node' as 'machine' }] },
    {},
    'UnknownObjectType',
    'Unknown object type',
    'spec.metaData.objectNames[0].object',
  ],
  [
    'unknown object in fromLabels',
    { fromLabels: [{ key: 'k', object: 'node' as 'machine', label: 'l' }] },
    {},
    'UnknownObjectType',
    'Unknown object type',
    'spec.metaData.fromLabels[0].object',
  ],
  [
    'unknown object in fromAnnotations',
    { fromAnnotations: [{ key: 'k', object: 'node' as 'machine', annotation: 'a' }] },
    {},
    'UnknownObjectType',
    'Unknown object type',
    'spec.metaData.fromAnnotations[0].object',
  ],
];

for (const [name, metaData, options, code, message, field] of errorRows) {
  test(`error: ${name} ⇒ ${code} at ${field}`, () => {
    const err = thrown(() => renderMetaData({ clusterName: 'c', metaData }, renderContext({ ...ctxOptions, ...options })));
    assert.instance(err, RenderError);
    const e = err as RenderError;
    assert.is(e.name, 'RenderError');
    assert.is(e.code, code);
    assert.is(e.message, message);
    assert.is(e.field, field);
  });
}

test('error: a template without metaData is not rendered (D-9: no metadata Secret)', () => {
  const e = thrown(() => renderMetaData({ clusterName: 'c' }, renderContext())) as RenderError;
  assert.is(e.code, 'NotRequested');
  assert.is(e.field, 'spec.metaData');
});

test('allocations are looked up with the reference the template gives (group and kind defaulted)', () => {
  const seen: unknown[] = [];
  const ctx = { ...renderContext(ctxOptions) };
  const lookup = ctx.allocationFor;
  ctx.allocationFor = (ref) => {
    seen.push(ref);
    return lookup(ref);
  };
  metaDataMap({
    clusterName: 'c',
    metaData: { ipAddressesFromIPPool: [pool('a', 'v4'), { key: 'b', name: 'capi', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }] },
  }, ctx);
  assert.equal(seen, [
    { name: 'v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' },
    { name: 'capi', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' },
  ]);
});

test.run();
