import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  hasError,
  hasFinishedDeprovisioning,
  isAvailable,
  isAvailableState,
  isFree,
  isKnownProvisioningState,
  isPaused,
  isPausedByUs,
  isProvisioned,
  ProvisioningState,
  provisioningState,
} from './states.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host states');

const allStates = [...Object.values(ProvisioningState), 'servicing', 'some future state'];

test('H-8: only ready and available count as available states; unknown states never do', () => {
  const available = allStates.filter(isAvailableState);
  assert.equal(available, ['ready', 'available']);
});

test('E-50: only `provisioned` is provisioned (not `externally provisioned`)', () => {
  const provisioned = allStates.filter((state) => isProvisioned(testHost('h', { state })));
  assert.equal(provisioned, ['provisioned']);
});

test('a host BMO has not reconciled (no status) reports the None state and is not available', () => {
  const bare = { ...testHost('h'), status: undefined };
  assert.is(provisioningState(bare), '');
  assert.is(isAvailable(bare), false);
});

test('open enum: unknown states are reported as is and are not "known"', () => {
  assert.is(provisioningState(testHost('h', { state: 'servicing' })), 'servicing');
  assert.is(isKnownProvisioningState('servicing'), false);
  assert.is(isKnownProvisioningState('match profile'), true);
});

test('X-8: deprovisioning has finished only in states without a deployment (unknown states keep waiting)', () => {
  const table: [state: string, poweredOn: boolean, finished: boolean][] = [
    ['', false, true],
    ['unmanaged', false, true],
    ['registering', false, true],
    ['match profile', false, true],
    ['inspecting', false, true],
    ['ready', false, true],
    ['available', false, true],
    ['externally provisioned', true, false],
    ['externally provisioned', false, true],
    ['preparing', false, false],
    ['provisioning', false, false],
    ['provisioned', false, false],
    ['deprovisioning', false, false],
    ['powering off before delete', false, false],
    ['deleting', false, false],
    ['some future state', false, false],
  ];
  for (const [state, poweredOn, finished] of table) {
    assert.is(hasFinishedDeprovisioning(testHost('h', { state, poweredOn })), finished, `${state} poweredOn=${poweredOn}`);
  }
});

test('H-5/H-6, B2-11: claimed, deleting, errored, paused (any value) and unhealthy hosts (either key) are not free', () => {
  const table: [label: string, options: Parameters<typeof testHost>[1], free: boolean][] = [
    ['plain', {}, true],
    ['claimed', { consumer: machineRef('m') }, false],
    ['deleting', { deleting: true }, false],
    ['error', { errorMessage: 'BMC unreachable' }, false],
    ['paused by user', { annotations: { 'baremetalhost.metal3.io/paused': '' } }, false],
    ['paused by capm3', { annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }, false],
    ['unhealthy (B2-11: v1.13 key)', { annotations: { 'capm3.metal3.io/unhealthy': 'capm3/UnhealthyNode' } }, false],
    ['unhealthy (B2-11: deprecated key)', { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } }, false],
    ['unhealthy (B2-11: both keys, any value)', { annotations: { 'capm3.metal3.io/unhealthy': '', 'capi.metal3.io/unhealthy': '' } }, false],
    ['detached (H-9: not a filter)', { annotations: { 'baremetalhost.metal3.io/detached': '' } }, true],
    ['powered on, online (H-9: not a filter)', { poweredOn: true, spec: { online: true } }, true],
  ];
  for (const [label, options, free] of table) assert.is(isFree(testHost('h', options)), free, label);
});

test('isAvailable: free, not reserved by node reuse, and ready/available', () => {
  assert.is(isAvailable(testHost('h', { state: 'ready' })), true);
  assert.is(isAvailable(testHost('h', { state: 'provisioned' })), false);
  assert.is(isAvailable(testHost('h', { labels: { 'infrastructure.cluster.x-k8s.io/node-reuse': 'md-a' } })), false);
  assert.is(isAvailable(testHost('h', { errorMessage: 'x' })), false);
});

test('pause: any value pauses; only metal3.io/capm3 is ours', () => {
  const user = testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': 'maintenance' } });
  const ours = testHost('h', { annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } });
  assert.equal([isPaused(user), isPausedByUs(user)], [true, false]);
  assert.equal([isPaused(ours), isPausedByUs(ours)], [true, true]);
  assert.is(hasError(testHost('h', { errorMessage: '' })), false);
});

test.run();
