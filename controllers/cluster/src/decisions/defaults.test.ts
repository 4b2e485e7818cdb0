// W-2 / C-5: what the controller writes back so a Metal3Cluster carries upstream's defaults.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3ClusterSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { cloudProviderEnabled, type SpecDefaults, specDefaults, specDefaultsPatch, specDefaultsToWrite, withDefaults } from './defaults.ts';

const test = suite('Metal3Cluster spec defaults (W-2, C-5)');

const endpoint = { host: '192.168.111.249', port: 6443 };

const rows: [string, Metal3ClusterSpec | undefined, SpecDefaults | undefined, boolean][] = [
  ['W-2: neither flag: cloud provider enabled', { controlPlaneEndpoint: endpoint }, { cloudProviderEnabled: true, noCloudProvider: false }, true],
  [
    'W-2: only cloudProviderEnabled=false: noCloudProvider=true',
    { controlPlaneEndpoint: endpoint, cloudProviderEnabled: false },
    { noCloudProvider: true },
    false,
  ],
  [
    'W-2: only cloudProviderEnabled=true: noCloudProvider=false',
    { controlPlaneEndpoint: endpoint, cloudProviderEnabled: true },
    { noCloudProvider: false },
    true,
  ],
  [
    'W-2/C-5: only noCloudProvider=true: cloudProviderEnabled=false',
    { controlPlaneEndpoint: endpoint, noCloudProvider: true },
    { cloudProviderEnabled: false },
    false,
  ],
  [
    'W-2: only noCloudProvider=false: cloudProviderEnabled=true',
    { controlPlaneEndpoint: endpoint, noCloudProvider: false },
    { cloudProviderEnabled: true },
    true,
  ],
  ['consistent flags: nothing to write', { controlPlaneEndpoint: endpoint, cloudProviderEnabled: false, noCloudProvider: true }, undefined, false],
  [
    'C-5: conflicting flags (stored before the CRD rule): cloudProviderEnabled wins',
    { controlPlaneEndpoint: endpoint, cloudProviderEnabled: false, noCloudProvider: false },
    { noCloudProvider: true },
    false,
  ],
  [
    'C-5: conflicting flags true/true: cloudProviderEnabled wins (E: upstream leaves both)',
    { controlPlaneEndpoint: endpoint, cloudProviderEnabled: true, noCloudProvider: true },
    { noCloudProvider: false },
    true,
  ],
  ['W-2: port 0 becomes 6443', { controlPlaneEndpoint: { host: 'api.example', port: 0 }, cloudProviderEnabled: true, noCloudProvider: false }, {
    controlPlaneEndpoint: { host: 'api.example', port: 6443 },
  }, true],
  [
    'W-2: a set port is kept',
    { controlPlaneEndpoint: { host: 'api.example', port: 7443 }, cloudProviderEnabled: true, noCloudProvider: false },
    undefined,
    true,
  ],
  ['no endpoint: none invented', { cloudProviderEnabled: true, noCloudProvider: false }, undefined, true],
  ['no spec at all', undefined, { cloudProviderEnabled: true, noCloudProvider: false }, true],
];

for (const [name, spec, want, enabled] of rows) {
  test(name, () => {
    const frozen = spec ? Object.freeze(structuredClone(spec)) : undefined;
    assert.equal(specDefaults(frozen), want);
    assert.is(cloudProviderEnabled(frozen), enabled);
    const defaulted = withDefaults(frozen);
    assert.is(defaulted.cloudProviderEnabled, enabled);
    assert.is(defaulted.noCloudProvider, !enabled);
    assert.is(specDefaults(defaulted), undefined, 'defaulting is idempotent');
  });
}

test('the write pins each defaulted field to the value it was computed from (absent: null), and nothing else', () => {
  assert.equal(specDefaultsPatch({ controlPlaneEndpoint: { host: 'h', port: 0 }, noCloudProvider: true }), [
    { op: 'test', path: '/spec/controlPlaneEndpoint/port', value: 0 },
    { op: 'add', path: '/spec/controlPlaneEndpoint/port', value: 6443 },
    { op: 'test', path: '/spec/cloudProviderEnabled', value: null },
    { op: 'add', path: '/spec/cloudProviderEnabled', value: false },
  ]);
  assert.is(specDefaultsPatch({ controlPlaneEndpoint: endpoint, cloudProviderEnabled: true, noCloudProvider: false }), undefined);
});

test("C-13 (changed): an invalid endpoint gets no defaults written (the status names it; the fix is the user's)", () => {
  assert.equal(specDefaultsToWrite({ controlPlaneEndpoint: endpoint }), specDefaultsPatch({ controlPlaneEndpoint: endpoint }));
  assert.is(specDefaultsToWrite({ controlPlaneEndpoint: { host: 'https://h', port: 0 } }), undefined);
  assert.is(specDefaultsToWrite({ controlPlaneEndpoint: endpoint, cloudProviderEnabled: true, noCloudProvider: false }), undefined);
  assert.is(specDefaultsToWrite(undefined), undefined);
});

test.run();
