// metav1 conditions in status.v1beta2.conditions: set/get, transition times, generation, order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Beta2ConditionHolder } from '../types.ts';
import { getV1Beta2Condition, hasV1Beta2Condition, isV1Beta2False, isV1Beta2True, isV1Beta2Unknown } from './get.ts';
import { deleteV1Beta2Condition, setV1Beta2Condition } from './set.ts';

const test = suite('conditions (v1beta2 / metav1)');
const T0 = '2020-01-01T00:00:00Z';

test('set writes type, status, reason, message and observedGeneration from the object', () => {
  const obj: V1Beta2ConditionHolder = { metadata: { generation: 3 } };
  setV1Beta2Condition(obj, { type: 'AssociateBareMetalHost', status: 'False', reason: 'WaitingForBootstrapData', lastTransitionTime: T0 });
  assert.equal(getV1Beta2Condition(obj, 'AssociateBareMetalHost'), {
    type: 'AssociateBareMetalHost',
    status: 'False',
    reason: 'WaitingForBootstrapData',
    message: '',
    observedGeneration: 3,
    lastTransitionTime: T0,
  });
  assert.ok(hasV1Beta2Condition(obj, 'AssociateBareMetalHost'));
  assert.ok(isV1Beta2False(obj, 'AssociateBareMetalHost'));
  assert.ok(isV1Beta2Unknown(obj, 'Metal3DataReady'));
});

test('lastTransitionTime moves only on a status change; reason, message and generation follow', () => {
  const obj: V1Beta2ConditionHolder = { metadata: { generation: 1 } };
  setV1Beta2Condition(obj, { type: 'Paused', status: 'False', reason: 'NotPaused', lastTransitionTime: T0 });
  obj.metadata!.generation = 2;
  setV1Beta2Condition(obj, { type: 'Paused', status: 'False', reason: 'BareMetalHostPauseAnnotationSetFailed', message: 'm' });
  let c = getV1Beta2Condition(obj, 'Paused')!;
  assert.is(c.lastTransitionTime, T0);
  assert.is(c.reason, 'BareMetalHostPauseAnnotationSetFailed');
  assert.is(c.observedGeneration, 2);
  setV1Beta2Condition(obj, { type: 'Paused', status: 'True', reason: 'Paused' }, () => '2031-01-01T00:00:00Z');
  c = getV1Beta2Condition(obj, 'Paused')!;
  assert.is(c.lastTransitionTime, '2031-01-01T00:00:00Z');
  assert.ok(isV1Beta2True(obj, 'Paused'));
});

test('order: Available, Ready, then by type; delete drops an emptied list', () => {
  const obj: V1Beta2ConditionHolder = {};
  for (const type of ['Paused', 'Ready', 'AssociateBareMetalHost', 'Available']) setV1Beta2Condition(obj, { type, status: 'True', reason: 'X' });
  assert.equal(obj.status?.v1beta2?.conditions?.map((c) => c.type), ['Available', 'Ready', 'AssociateBareMetalHost', 'Paused']);
  for (const type of ['Paused', 'Ready', 'AssociateBareMetalHost', 'Available']) assert.ok(deleteV1Beta2Condition(obj, type));
  assert.not.ok(deleteV1Beta2Condition(obj, 'Ready'));
  assert.equal(obj.status?.v1beta2, {});
});

test.run();
