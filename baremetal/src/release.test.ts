import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostMergePatch } from './host-patch.ts';
import { deprovisionedHost, releasedHost, withoutOwner } from './release.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host release (pure part)');

const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';
const CLUSTER = 'cluster.x-k8s.io/cluster-name';
const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';
const me = machineRef('m-0', 'ns', 'uid-m');

const provisioned = () =>
  testHost('h', {
    state: 'provisioned',
    consumer: me,
    spec: {
      online: true,
      image: { url: 'http://x/img', checksum: 'c' },
      customDeploy: { method: 'cd' },
      userData: { name: 'ud', namespace: 'ns' },
      metaData: { name: 'md', namespace: 'ns' },
      networkData: { name: 'nd', namespace: 'ns' },
    },
  });

test('X-5: image, customDeploy and the Secret references go; each Secret reference can be kept (E-25)', () => {
  assert.equal(hostMergePatch(provisioned(), deprovisionedHost(provisioned())), {
    spec: { image: null, customDeploy: null, userData: null, metaData: null, networkData: null, online: false },
  });
  const keep = deprovisionedHost(provisioned(), { clearMetaData: false, clearNetworkData: false });
  assert.equal([keep.spec?.userData, keep.spec?.metaData?.name, keep.spec?.networkData?.name], [undefined, 'md', 'nd']);
});

test('X-6, X-9, B2-14: power after deprovisioning by disablePowerOff, fast track and cleaning mode (any other fast-track value powers off)', () => {
  const table: [disablePowerOff: boolean | undefined, fastTrack: string | undefined, cleaning: 'metadata' | 'disabled', online: boolean][] = [
    [true, 'true', 'metadata', true],
    [true, 'false', 'disabled', true],
    [true, undefined, 'metadata', true],
    [false, 'true', 'metadata', true],
    [undefined, 'true', 'metadata', true],
    [false, 'true', 'disabled', false],
    [false, 'false', 'metadata', false],
    [false, 'false', 'disabled', false],
    [undefined, undefined, 'metadata', false],
    [undefined, '', 'metadata', false],
    [undefined, 'maybe', 'metadata', false], // v1.12.7 left power alone here
  ];
  for (const [disablePowerOff, fastTrack, automatedCleaningMode, online] of table) {
    for (const before of [true, false]) {
      const host = testHost('h', { spec: { online: before, automatedCleaningMode, ...(disablePowerOff === undefined ? {} : { disablePowerOff }) } });
      const label = `${String(disablePowerOff)}/${String(fastTrack)}/${automatedCleaningMode}, online ${before} before`;
      assert.is(deprovisionedHost(host, fastTrack === undefined ? {} : { fastTrack }).spec?.online, online, label);
    }
  }
});

test('X-7: a host already deprovisioned as asked needs no patch', () => {
  const done = deprovisionedHost(provisioned());
  assert.is(hostMergePatch(done, deprovisionedHost(done)), undefined);
});

test('X-11, X-13, X-14: consumerRef, our owner references, our cluster label and our pause go; the rest stays', () => {
  const host = provisioned();
  host.metadata.labels = { [CLUSTER]: 'c1', rack: 'r1' };
  host.metadata.annotations = { [PAUSED]: 'metal3.io/capm3', [STATUS]: '{}' };
  host.metadata.ownerReferences = [
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', uid: 'uid-m', controller: true },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5', kind: 'Metal3Machine', name: 'm-0', uid: 'older' },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'u' },
  ];
  const released = releasedHost(host, { consumer: me, clusterName: 'c1' });
  assert.is(released.spec?.consumerRef, undefined);
  assert.equal(released.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'u' }]);
  assert.equal(released.metadata.labels, { rack: 'r1' });
  assert.equal(released.metadata.annotations, { [STATUS]: '{}' }, 'E-41: the status annotation stays');
});

test("X-14: another cluster's label and a user's pause are kept", () => {
  const host = testHost('h', { consumer: me, labels: { [CLUSTER]: 'other' }, annotations: { [PAUSED]: 'maintenance' } });
  const released = releasedHost(host, { consumer: me, clusterName: 'c1' });
  assert.equal(released.metadata.labels, { [CLUSTER]: 'other' });
  assert.equal(released.metadata.annotations, { [PAUSED]: 'maintenance' });
});

test('X-10, N-6: the node-reuse label is written when asked', () => {
  const released = releasedHost(testHost('h', { consumer: me }), { consumer: me, nodeReuseName: 'cp-kcp' });
  assert.equal(released.metadata.labels, { [REUSE]: 'cp-kcp' });
  const patch = hostMergePatch(testHost('h', { consumer: me }), released);
  assert.equal(patch, { metadata: { labels: { [REUSE]: 'cp-kcp' } }, spec: { consumerRef: null } });
});

test('E-19 (fixed): a stale owner reference to us is removed from a host we do not hold', () => {
  const host = testHost('h', { consumer: machineRef('m-1') });
  host.metadata.ownerReferences = [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', uid: 'uid-m' }];
  assert.equal(hostMergePatch(host, withoutOwner(host, me)), { metadata: { ownerReferences: null } });
});

test.run();
