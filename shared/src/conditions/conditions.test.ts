// v1beta1 conditions (research 0.3): getters, setters, transition times, order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Condition } from '@metal3-ts/generated';
import { deleteCondition } from './delete.ts';
import { getCondition, getReason, getSeverity, hasCondition, isFalse, isTrue, isUnknown } from './get.ts';
import { markFalse, markTrue, markUnknown, setCondition } from './set.ts';
import { compareConditionTypes } from './sort.ts';
import { conditionTimestamp, type V1Beta1ConditionHolder } from './types.ts';

const test = suite('conditions (v1beta1)');
const T0 = '2020-01-01T00:00:00Z';

const holder = (conditions?: Condition[]): V1Beta1ConditionHolder => (conditions ? { status: { conditions } } : {});

test('getters read status.conditions and treat a missing condition as Unknown', () => {
  const obj = holder([
    { type: 'AssociateBMH', status: 'False', severity: 'Error', reason: 'AssociateBMHFailed', lastTransitionTime: T0 },
    { type: 'Metal3DataReady', status: 'True', lastTransitionTime: T0 },
  ]);
  assert.ok(hasCondition(obj, 'AssociateBMH'));
  assert.ok(isFalse(obj, 'AssociateBMH'));
  assert.ok(isTrue(obj, 'Metal3DataReady'));
  assert.ok(isUnknown(obj, 'KubernetesNodeReady'));
  assert.not.ok(isTrue(obj, 'KubernetesNodeReady'));
  assert.not.ok(isFalse(obj, 'KubernetesNodeReady'));
  assert.is(getReason(obj, 'AssociateBMH'), 'AssociateBMHFailed');
  assert.is(getSeverity(obj, 'AssociateBMH'), 'Error');
  assert.is(getReason(obj, 'Missing'), '');
  assert.is(getCondition(holder(), 'Ready'), undefined);
});

test('markFalse, markTrue and markUnknown write CAPI v1beta1 conditions (True has no reason or severity)', () => {
  const obj = holder();
  markFalse(obj, 'AssociateBMH', 'WaitingForClusterInfrastructure', 'Info', 'waiting');
  assert.equal(getCondition(obj, 'AssociateBMH'), {
    type: 'AssociateBMH',
    status: 'False',
    severity: 'Info',
    reason: 'WaitingForClusterInfrastructure',
    message: 'waiting',
    lastTransitionTime: getCondition(obj, 'AssociateBMH')!.lastTransitionTime,
  });
  markTrue(obj, 'AssociateBMH');
  const c = getCondition(obj, 'AssociateBMH')!;
  assert.equal(Object.keys(c).sort(), ['lastTransitionTime', 'status', 'type']);
  markUnknown(obj, 'KubernetesNodeReady', 'Deleting');
  assert.is(getCondition(obj, 'KubernetesNodeReady')?.status, 'Unknown');
  assert.is(getCondition(obj, 'KubernetesNodeReady')?.message, undefined, 'an empty message is left out (CRD minLength 1)');
});

test('lastTransitionTime changes when the state changes (status, severity, reason, message), as CAPI v1beta1 Set', () => {
  const obj = holder();
  setCondition(obj, { type: 'AssociateBMH', status: 'False', severity: 'Info', reason: 'A', lastTransitionTime: T0 });
  assert.is(getCondition(obj, 'AssociateBMH')?.lastTransitionTime, T0, 'a new condition takes the given time');
  setCondition(obj, { type: 'AssociateBMH', status: 'False', severity: 'Info', reason: 'A' }, () => '2029-01-01T00:00:00Z');
  assert.is(getCondition(obj, 'AssociateBMH')?.lastTransitionTime, T0, 're-stating the same state keeps the time');
  setCondition(obj, { type: 'AssociateBMH', status: 'False', severity: 'Warning', reason: 'B', message: 'other' }, () => '2029-01-01T00:00:00Z');
  assert.is(getCondition(obj, 'AssociateBMH')?.lastTransitionTime, '2029-01-01T00:00:00Z');
  assert.is(getCondition(obj, 'AssociateBMH')?.reason, 'B');
  setCondition(obj, { type: 'AssociateBMH', status: 'True' }, () => '2030-05-05T05:05:05Z');
  assert.is(getCondition(obj, 'AssociateBMH')?.lastTransitionTime, '2030-05-05T05:05:05Z');
});

test('conditions are kept sorted: Ready first, then by type', () => {
  const obj = holder();
  markTrue(obj, 'Metal3DataReady');
  markTrue(obj, 'Ready');
  markFalse(obj, 'AssociateBMH', 'X', 'Info');
  markFalse(obj, 'KubernetesNodeReady', 'Deleting', 'Info');
  assert.equal(obj.status?.conditions?.map((c) => c.type), ['Ready', 'AssociateBMH', 'KubernetesNodeReady', 'Metal3DataReady']);
  assert.ok(compareConditionTypes('Ready', 'Available') < 0);
  assert.ok(compareConditionTypes('B', 'A') > 0);
});

test('deleteCondition removes one condition and drops an emptied list', () => {
  const obj = holder();
  markTrue(obj, 'A');
  markTrue(obj, 'B');
  assert.ok(deleteCondition(obj, 'A'));
  assert.not.ok(deleteCondition(obj, 'A'));
  assert.equal(obj.status?.conditions?.map((c) => c.type), ['B']);
  assert.ok(deleteCondition(obj, 'B'));
  assert.equal(obj.status, {});
});

test('timestamps are RFC 3339 UTC with whole seconds, as metav1.Time', () => {
  assert.is(conditionTimestamp(new Date('2026-11-22T10:36:50.123Z')), '2026-11-22T10:36:50Z');
  assert.match(conditionTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test.run();
