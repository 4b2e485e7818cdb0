// DR-20 / D-15 / E-18 / E-27: which pools a template claims addresses from.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3DataTemplateSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isMetal3IPPool, poolsReferenced, RenderError } from './index.ts';
import { renderContext, thrown } from './testing.ts';

const test = suite('render/pools: referenced pools');

const m3 = (name: string) => ({ name, apiGroup: 'ipam.metal3.io', kind: 'IPPool' });
const capi = (name: string) => ({ name, apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' });
const objects = renderContext({ host: { annotations: { net: 'from-annotation', gw: 'gw-annotation', empty: '' } } });

const full: Metal3DataTemplateSpec = {
  clusterName: 'c',
  metaData: {
    ipAddressesFromIPPool: [{ key: 'a', name: 'meta-a', apiGroup: '', kind: '' }],
    prefixesFromIPPool: [{ key: 'p', name: 'meta-a', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
    gatewaysFromIPPool: [{ key: 'g', name: 'capi-pool', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }],
    dnsServersFromIPPool: [{ key: 'd', name: 'meta-dns', apiGroup: '', kind: '' }],
  },
  networkData: {
    networks: {
      ipv4: [
        {
          id: 'n1',
          link: 'e',
          fromPoolAnnotation: { object: 'baremetalhost', annotation: 'net' },
          ipAddressFromIPPool: 'v4-name',
          routes: [
            {
              network: '0.0.0.0',
              gateway: { fromPoolAnnotation: { object: 'baremetalhost', annotation: 'gw' }, fromIPPool: 'gw-name' },
              services: { dnsFromIPPool: 'route-dns' },
            },
            { network: '0.0.0.0', gateway: { string: '1.1.1.1', fromIPPool: 'claimed-anyway' } },
          ],
        },
        { id: 'n2', link: 'e', fromPoolRef: { name: 'ref-pool', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }, ipAddressFromIPPool: 'ignored' },
        { id: 'n3', link: 'e', ipAddressFromIPPool: '' },
      ],
      ipv6: [{ id: 'n6', link: 'e', ipAddressFromIPPool: 'v6-name', routes: [{ network: '::', gateway: { fromPoolRef: { name: 'gw6', kind: '' } } }] }],
      ipv4DHCP: [{
        id: 'd',
        link: 'e',
        routes: [{ network: '0.0.0.0', gateway: { fromPoolAnnotation: { object: 'baremetalhost', annotation: 'net' }, fromIPPool: 'dhcp-gw' } }],
      }],
      ipv6SLAAC: [{
        id: 's',
        link: 'e',
        routes: [{ network: '::', gateway: { fromPoolAnnotation: { object: 'baremetalhost', annotation: 'net' } }, services: { dnsFromIPPool: 'slaac-dns' } }],
      }],
    },
    services: { dnsFromIPPool: 'svc-dns' },
  },
};

test('DR-20: every pool once, group and kind defaulted, in template order; annotations resolved with the machine context', () => {
  assert.equal(poolsReferenced(full, objects), [
    m3('meta-a'),
    capi('capi-pool'),
    m3('meta-dns'),
    m3('from-annotation'),
    m3('v4-name'),
    m3('gw-annotation'),
    m3('gw-name'),
    m3('route-dns'),
    m3('claimed-anyway'),
    capi('ref-pool'),
    m3('v6-name'),
    m3('gw6'),
    m3('dhcp-gw'),
    m3('slaac-dns'),
    m3('svc-dns'),
  ]);
});

test('E-18: without the machine context (release) annotation-named pools are left out', () => {
  const names = poolsReferenced(full).map((p) => p.name);
  assert.not.ok(names.includes('from-annotation'));
  assert.not.ok(names.includes('gw-annotation'));
  assert.is(names.length, 13);
});

test('E-27: annotation-named gateways of DHCP/SLAAC networks are not collected', () => {
  const spec: Metal3DataTemplateSpec = {
    clusterName: 'c',
    networkData: {
      networks: {
        ipv6DHCP: [{ id: 'd', link: 'e', routes: [{ network: '::', gateway: { fromPoolAnnotation: { object: 'baremetalhost', annotation: 'net' } } }] }],
      },
    },
  };
  assert.equal(poolsReferenced(spec, objects), []);
});

test('DR-20: the same name with another group or kind is an error', () => {
  const spec: Metal3DataTemplateSpec = {
    clusterName: 'c',
    metaData: {
      ipAddressesFromIPPool: [{ key: 'a', name: 'p', apiGroup: '', kind: '' }],
      gatewaysFromIPPool: [{ key: 'g', name: 'p', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' }],
    },
  };
  const err = thrown(() => poolsReferenced(spec)) as RenderError;
  assert.instance(err, RenderError);
  assert.equal([err.code, err.message, err.field], [
    'PoolTypeConflict',
    'multiple references with the same name but different resource types',
    'spec.metaData.gatewaysFromIPPool[0]',
  ]);
});

test('DR-20: an empty or missing pool annotation is an error with the machine context', () => {
  for (const annotation of ['empty', 'absent']) {
    const spec: Metal3DataTemplateSpec = {
      clusterName: 'c',
      networkData: { networks: { ipv4: [{ id: 'n', link: 'e', fromPoolAnnotation: { object: 'baremetalhost', annotation } }] } },
    };
    const err = thrown(() => poolsReferenced(spec, objects)) as RenderError;
    assert.equal([err.code, err.message, err.field], [
      'AnnotationMissing',
      `annotation ${annotation} not found or empty on baremetalhost`,
      'spec.networkData.networks.ipv4[0].fromPoolAnnotation',
    ]);
  }
  const unknown: Metal3DataTemplateSpec = {
    clusterName: 'c',
    networkData: { networks: { ipv4: [{ id: 'n', link: 'e', fromPoolAnnotation: { object: 'node' as 'machine', annotation: 'net' } }] } },
  };
  assert.is((thrown(() => poolsReferenced(unknown, objects)) as RenderError).code, 'UnknownObjectType');
});

test('D-15: Metal3 IPAM pools are group ipam.metal3.io kind IPPool, or neither given', () => {
  assert.ok(isMetal3IPPool({ name: 'p' }));
  assert.ok(isMetal3IPPool({ name: 'p', apiGroup: '', kind: '' }));
  assert.ok(isMetal3IPPool(m3('p')));
  assert.not.ok(isMetal3IPPool(capi('p')));
  assert.not.ok(isMetal3IPPool({ name: 'p', kind: 'IPPool' }));
  assert.not.ok(isMetal3IPPool({ name: 'p', apiGroup: 'ipam.metal3.io' }));
});

test.run();
