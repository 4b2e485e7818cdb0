import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { hostMergePatch } from './host-patch.ts';
import { CrossNamespaceSecretError, hasDeployment, type HostProvisioning, metal3MachineProvisioning, provisionedHost } from './provision.ts';
import { testHost } from './testing.ts';

const test = suite('host provisioning (pure part)');

const image = {
  url: 'http://172.22.0.1/images/node.img',
  checksum: 'http://172.22.0.1/images/node.img.sha256sum',
  checksumType: 'sha256',
  format: 'raw',
} as const;
const full: HostProvisioning = {
  deployment: { image, userData: { name: 'ud' }, metaData: { name: 'md', namespace: 'ns' }, networkData: { name: 'nd' } },
  automatedCleaningMode: 'disabled',
};

test('M-25: image, Secret references (defaulted to the host namespace), cleaning mode and power in one patch', () => {
  const host = testHost('h');
  assert.equal(hostMergePatch(host, provisionedHost(host, full)), {
    spec: {
      image,
      userData: { name: 'ud', namespace: 'ns' },
      metaData: { name: 'md', namespace: 'ns' },
      networkData: { name: 'nd', namespace: 'ns' },
      automatedCleaningMode: 'disabled',
      online: true,
    },
  });
});

test('M-25: a host that already has an image or customDeploy is never re-provisioned; cleaning mode and power still apply', () => {
  for (const spec of [{ image: { url: 'http://old/img' } }, { customDeploy: { method: 'install_coreos' } }]) {
    const host = testHost('h', { spec });
    assert.equal(hostMergePatch(host, provisionedHost(host, full)), { spec: { automatedCleaningMode: 'disabled', online: true } });
    assert.ok(hasDeployment(host));
  }
});

test('M-25, E-9: without a deployment only cleaning mode and power are set; power defaults to on', () => {
  const host = testHost('h', { spec: { userData: { name: 'keep', namespace: 'ns' } } });
  assert.equal(hostMergePatch(host, provisionedHost(host, {})), { spec: { online: true } });
  assert.equal(hostMergePatch(host, provisionedHost(host, { online: false, automatedCleaningMode: 'metadata' })), undefined);
});

test('M-25: customDeploy alone, or with an image; empty checksumType/format are omitted', () => {
  const host = testHost('h');
  const custom = provisionedHost(host, { deployment: { customDeploy: { method: 'install_coreos' }, userData: { name: 'ud' } } });
  assert.equal(custom.spec?.customDeploy, { method: 'install_coreos' });
  assert.is(custom.spec?.image, undefined);
  const both = provisionedHost(host, {
    deployment: { customDeploy: { method: 'm' }, image: { url: 'http://x/img', checksum: 'c' }, userData: { name: 'ud' } },
  });
  assert.equal(both.spec?.image, { url: 'http://x/img', checksum: 'c' });
  assert.equal(both.spec?.customDeploy, { method: 'm' });
});

test('M-25: a Secret in another namespace is refused', () => {
  for (const field of ['userData', 'metaData', 'networkData'] as const) {
    assert.throws(
      () => provisionedHost(testHost('h'), { deployment: { [field]: { name: 's', namespace: 'elsewhere' } } }),
      (e: unknown) => e instanceof CrossNamespaceSecretError && e.message.includes(field),
      field,
    );
  }
});

test('a Metal3Machine asks for its deployment only once status.userData is known (M-23, M-25)', () => {
  const machine = newMetal3Machine({
    metadata: { name: 'm', namespace: 'ns' },
    spec: { image: { url: 'http://x/img', checksum: 'c', format: 'qcow2' }, automatedCleaningMode: 'metadata' },
  });
  assert.equal(metal3MachineProvisioning(machine), { deployment: undefined, automatedCleaningMode: 'metadata', online: true });
  machine.status = { userData: { name: 'bootstrap', namespace: 'ns' }, metaData: { name: 'm-metadata', namespace: 'ns' } };
  const provisioning = metal3MachineProvisioning(machine);
  assert.equal(provisioning.deployment?.image, { url: 'http://x/img', checksum: 'c', checksumType: undefined, format: 'qcow2' });
  assert.equal(provisioning.deployment?.userData, { name: 'bootstrap', namespace: 'ns' });
  assert.equal(provisioning.deployment?.metaData, { name: 'm-metadata', namespace: 'ns' });
  assert.is(provisioning.deployment?.networkData, undefined);
  const host = provisionedHost(testHost('h'), provisioning);
  assert.equal(host.spec?.image, { url: 'http://x/img', checksum: 'c', format: 'qcow2' });
  machine.spec = { ...machine.spec, image: { url: '', checksum: '' }, customDeploy: { method: 'cd' } };
  assert.is(metal3MachineProvisioning(machine).deployment?.image, undefined, 'an empty image url sets no image');
});

test.run();
