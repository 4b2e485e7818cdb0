import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonMap } from './json.ts';
import { metal3Cluster, metal3ClusterTemplate, metal3Machine, metal3MachineTemplate } from './index.ts';

const test = suite('conversion rules: Metal3Cluster, Metal3ClusterTemplate, Metal3Machine, Metal3MachineTemplate');

const clusterHub = (spec: JsonMap) => metal3Cluster.toHub({ spec: { controlPlaneEndpoint: { host: 'h', port: 6443 }, ...spec } })['spec'];
const clusterSpoke = (spec: JsonMap) => metal3Cluster.toSpoke({ spec })['spec'];

test('CV-5 (deviation, S-2): noCloudProvider alone keeps its intent; cloudProviderEnabled wins when both are set', () => {
  const cases: [JsonMap, boolean | undefined][] = [
    [{ noCloudProvider: false }, true],
    [{ noCloudProvider: true }, false],
    [{ cloudProviderEnabled: true, noCloudProvider: false }, true],
    [{ cloudProviderEnabled: false }, false],
    [{}, undefined],
  ];
  for (const [spec, want] of cases) {
    const hub = clusterHub(spec) as Record<string, unknown>;
    assert.is(hub['cloudProviderEnabled'], want, JSON.stringify(spec));
    assert.not.ok('noCloudProvider' in hub);
  }
});

test('CV-5: v1beta2 → v1beta1 writes noCloudProvider = !cloudProviderEnabled, neither when unset', () => {
  assert.equal(clusterSpoke({ cloudProviderEnabled: true }), { cloudProviderEnabled: true, noCloudProvider: false });
  assert.equal(clusterSpoke({ cloudProviderEnabled: false }), { cloudProviderEnabled: false, noCloudProvider: true });
  assert.equal(clusterSpoke({}), {});
});

test('CV-6: failure domains map ⇄ list sorted by name; only controlPlane true is carried', () => {
  const spoke = { b: { controlPlane: false, attributes: { rack: '2' } }, a: { controlPlane: true }, '': { controlPlane: true } };
  const hub = clusterHub({ failureDomains: spoke }) as JsonMap;
  assert.equal(hub['failureDomains'], [{ name: 'a', controlPlane: true }, { name: 'b', attributes: { rack: '2' } }]);
  assert.equal(clusterSpoke({ failureDomains: hub['failureDomains'] as JsonMap[] })!['failureDomains' as never], {
    a: { controlPlane: true },
    b: { attributes: { rack: '2' } },
  });
  assert.not.ok('failureDomains' in (clusterHub({ failureDomains: {} }) as object), 'an empty map is unset in v1beta2');
});

test('CV-8/AP-2: endpoint port int → int32 1–65535, "" host unset; v1beta1 gets both fields back', () => {
  const cases: [JsonMap, JsonMap | undefined][] = [
    [{ host: 'api', port: 6443 }, { host: 'api', port: 6443 }],
    [{ host: '', port: 6443 }, { port: 6443 }],
    [{ host: 'api', port: 70000 }, { host: 'api' }],
    [{ host: '', port: 0 }, undefined],
  ];
  for (const [endpoint, want] of cases) {
    assert.equal((metal3Cluster.toHub({ spec: { controlPlaneEndpoint: endpoint } })['spec'] as Record<string, unknown>)['controlPlaneEndpoint'], want);
  }
  assert.equal(clusterSpoke({ controlPlaneEndpoint: { port: 6443 } }), { controlPlaneEndpoint: { host: '', port: 6443 } });
});

test('CV-7/CV-3a: status layout; generations of conditions never mix; ready false leaves provisioned unset', () => {
  const v1 = [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }];
  const v2 = [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
  const status = {
    ready: true,
    conditions: v1,
    v1beta2: { conditions: v2 },
    failureReason: 'CreateError',
    failureMessage: 'm',
    lastUpdated: '2026-01-01T00:00:00Z',
  };
  const hub = metal3Cluster.toHub({ status })['status'];
  assert.equal(hub, {
    lastUpdated: '2026-01-01T00:00:00Z',
    conditions: v2,
    deprecated: { v1beta1: { conditions: v1, failureReason: 'CreateError', failureMessage: 'm' } },
    initialization: { provisioned: true },
  });
  assert.equal(metal3Cluster.toSpoke({ status: hub! })['status'], status);
  assert.equal(metal3Cluster.toHub({ status: { ready: false } })['status'], {}, 'no deprecated struct, no initialization');
  assert.equal(metal3Machine.toHub({ status: { phase: 'Provisioned', ready: false } })['status'], {}, 'phase is v1beta1-only (CV-4)');
  assert.equal(metal3Machine.toSpoke({ status: {} })['status'], { ready: false }, 'ready = provisioned ?? false');
});

test('CV-9/S-4: machine spec: "" means unset, format ⇄ diskFormat, refs lose kind/uid', () => {
  const spec = {
    providerID: '',
    automatedCleaningMode: 'metadata',
    customDeploy: { method: '' },
    hostSelector: { matchLabels: {}, matchExpressions: [] },
    image: { url: 'http://i/u.qcow2', checksum: 'abc', checksumType: '', format: 'qcow2' },
    dataTemplate: { kind: 'Metal3DataTemplate', name: 'dt', namespace: 'ns', uid: 'u-1' },
  };
  const hub = metal3Machine.toHub({ spec })['spec'];
  assert.equal(hub, {
    automatedCleaningMode: 'metadata',
    image: { url: 'http://i/u.qcow2', checksum: 'abc', diskFormat: 'qcow2' },
    dataTemplate: { name: 'dt', namespace: 'ns' },
  });
  assert.equal(metal3Machine.toSpoke({ spec: hub! })['spec'], {
    automatedCleaningMode: 'metadata',
    image: { url: 'http://i/u.qcow2', checksum: 'abc', format: 'qcow2' },
    dataTemplate: { name: 'dt', namespace: 'ns' },
  }, 'checksumType is not written as "" (deviation: v1beta1 enums reject it)');
  assert.equal(metal3Machine.toSpoke({ spec: { image: { url: 'u' } } })['spec'], { image: { url: 'u', checksum: '' } }, 'CV-9: unset checksum ⇒ ""');
});

test('CV-10/AP-15: nodeReuse is copied as it is, an explicit false included (both CRDs default it)', () => {
  const template = { spec: { image: { url: 'u', checksum: 'c' } } };
  assert.equal(metal3MachineTemplate.toHub({ spec: { nodeReuse: false, template } })['spec'], { nodeReuse: false, template });
  assert.equal(metal3MachineTemplate.toSpoke({ spec: { nodeReuse: true, template } })['spec'], { nodeReuse: true, template });
  assert.equal(metal3MachineTemplate.toSpoke({ spec: { template } })['spec'], { template });
});

test('CV-3b/AP-7: template metadata is dropped by the v1beta1 rules (the annotation carries it)', () => {
  const spec = { template: { metadata: { labels: { a: 'b' } }, spec: { controlPlaneEndpoint: { host: 'h', port: 1 } } } };
  assert.equal(metal3ClusterTemplate.toSpoke({ spec })['spec'], { template: { spec: { controlPlaneEndpoint: { host: 'h', port: 1 } } } });
  const machine = { template: { metadata: { annotations: { a: 'b' } }, spec: {} } };
  assert.equal(metal3MachineTemplate.toSpoke({ spec: machine })['spec'], { template: { spec: {} } });
});

test.run();
