import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostMergePatch } from './host-patch.ts';
import { pausedHost, statusAnnotationValue, unpausedHost } from './pause.ts';
import { testHost } from './testing.ts';

const test = suite('host pause (pure part)');

const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';
const CLUSTER = 'cluster.x-k8s.io/cluster-name';

test('M-14: the status annotation is compact JSON with sorted keys, without hardware, Go-escaped', () => {
  const host = testHost('h', { errorMessage: 'a <b> & c' });
  host.status = { ...host.status!, hardware: { hostname: 'node-0' }, provisioning: { state: 'provisioned', ID: 'x' } };
  assert.is(
    statusAnnotationValue(host),
    '{"errorCount":0,"errorMessage":"a \\u003cb\\u003e \\u0026 c","operationalStatus":"error","poweredOn":false,"provisioning":{"ID":"x","state":"provisioned"}}',
  );
  assert.ok(!statusAnnotationValue(host).includes('hardware'));
});

test('M-14: pausing sets our value and the status annotation in one patch', () => {
  const host = testHost('h', { state: 'provisioned' });
  const patch = hostMergePatch(host, pausedHost(host));
  assert.equal(Object.keys(patch?.metadata?.annotations ?? {}).sort(), [PAUSED, STATUS]);
  assert.is(patch?.metadata?.annotations?.[PAUSED], 'metal3.io/capm3');
  assert.equal(JSON.parse(String(patch?.metadata?.annotations?.[STATUS])).provisioning, { ID: 'ironic-h', state: 'provisioned' });
});

test('M-14: a host paused already (by anyone) is left alone', () => {
  for (const value of ['', 'maintenance', 'metal3.io/capm3']) {
    const host = testHost('h', { annotations: { [PAUSED]: value } });
    assert.is(hostMergePatch(host, pausedHost(host)), undefined, value);
  }
});

test('M-15: only our pause is lifted, and only on a host of our cluster when one is named; the status annotation stays', () => {
  const ours = testHost('h', { labels: { [CLUSTER]: 'c1' }, annotations: { [PAUSED]: 'metal3.io/capm3', [STATUS]: '{}' } });
  assert.equal(hostMergePatch(ours, unpausedHost(ours, { clusterName: 'c1' })), { metadata: { annotations: { [PAUSED]: null } } });
  assert.equal(hostMergePatch(ours, unpausedHost(ours)), { metadata: { annotations: { [PAUSED]: null } } });
  assert.is(hostMergePatch(ours, unpausedHost(ours, { clusterName: 'c2' })), undefined, 'another cluster');
  const user = testHost('h', { labels: { [CLUSTER]: 'c1' }, annotations: { [PAUSED]: 'maintenance' } });
  assert.is(hostMergePatch(user, unpausedHost(user, { clusterName: 'c1' })), undefined, 'a user pause');
  const none = testHost('h');
  assert.is(hostMergePatch(none, unpausedHost(none)), undefined, 'not paused');
});

test.run();
