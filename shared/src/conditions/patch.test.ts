// Three-way merge of condition lists (the patch helper's conflict rules, after Cluster API's
// condition patch): only our changes are applied on the server's list; others' survive.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Condition, MetaV1Condition } from '@metal3-ts/generated';
import { applyConditionChanges, ConditionConflictError, diffConditions, v1beta1Dialect, v1beta2Dialect, withOwnedState } from './patch.ts';

const test = suite('condition three-way merge');
const T0 = '2020-01-01T00:00:00Z';
const T1 = '2021-01-01T00:00:00Z';

const c = (type: string, status: string, reason?: string, time = T0): Condition => ({
  type,
  status,
  ...(reason ? { reason, severity: 'Info' } : {}),
  lastTransitionTime: time,
});

function conflictTypes(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    assert.instance(error, ConditionConflictError);
    return (error as ConditionConflictError).types;
  }
  assert.unreachable('expected a ConditionConflictError');
  return [];
}

test('diff names added, changed and removed conditions by type', () => {
  const before = [c('A', 'True'), c('B', 'False', 'x'), c('C', 'True')];
  const after = [c('A', 'True'), c('B', 'True', undefined, T1), c('D', 'True')];
  assert.equal(
    diffConditions(before, after).map((ch) => [ch.type, ch.before !== undefined, ch.after !== undefined]),
    [
      ['B', true, true],
      ['D', false, true],
      ['C', true, false],
    ],
  );
  assert.equal(diffConditions(before, structuredClone(before)), []);
});

test("another writer's different conditions survive our changes, and the result is sorted", () => {
  const before = [c('Mine', 'False', 'waiting')];
  const after = [c('Mine', 'True', undefined, T1), c('Ready', 'True')];
  const server = [c('Mine', 'False', 'waiting'), c('Theirs', 'True')];
  const merged = applyConditionChanges(server, diffConditions(before, after), v1beta1Dialect);
  assert.equal(merged.map((x) => [x.type, x.status]), [
    ['Ready', 'True'],
    ['Mine', 'True'],
    ['Theirs', 'True'],
  ]);
});

test('a condition both writers changed differently conflicts unless we own it', () => {
  const before = [c('Shared', 'False', 'a')];
  const after = [c('Shared', 'True', undefined, T1)];
  const server = [c('Shared', 'False', 'changed-by-them')];
  const changes = diffConditions(before, after);
  assert.equal(conflictTypes(() => applyConditionChanges(server, changes, v1beta1Dialect)), ['Shared']);
  const owned = applyConditionChanges(server, changes, v1beta1Dialect, new Set(['Shared']));
  assert.equal(owned.map((x) => [x.type, x.status]), [['Shared', 'True']]);
});

test('no conflict when the server already reached our state', () => {
  const before = [c('A', 'False', 'a')];
  const after = [c('A', 'True', undefined, T1)];
  const server = [c('A', 'True', undefined, T0)];
  const merged = applyConditionChanges(server, diffConditions(before, after), v1beta1Dialect);
  assert.is(merged[0]?.lastTransitionTime, T0, "an unchanged status keeps the server's transition time");
});

test('adding a condition someone else added differently conflicts; removed-under-change conflicts', () => {
  assert.equal(conflictTypes(() => applyConditionChanges([c('New', 'False', 'theirs')], diffConditions([], [c('New', 'True')]), v1beta1Dialect)), ['New']);
  assert.equal(
    conflictTypes(() => applyConditionChanges([], diffConditions([c('Gone', 'False', 'a')], [c('Gone', 'True')]), v1beta1Dialect)),
    ['Gone'],
  );
});

test('removing: gone already is fine, changed by another writer conflicts unless owned', () => {
  const changes = diffConditions([c('X', 'False', 'a')], []);
  assert.equal(applyConditionChanges([], changes, v1beta1Dialect), []);
  assert.equal(applyConditionChanges([c('X', 'False', 'a'), c('Y', 'True')], changes, v1beta1Dialect).map((x) => x.type), ['Y']);
  assert.equal(conflictTypes(() => applyConditionChanges([c('X', 'True')], changes, v1beta1Dialect)), ['X']);
  assert.equal(applyConditionChanges([c('X', 'True')], changes, v1beta1Dialect, new Set(['X'])), []);
});

test('M-42: a write that changes an owned summary re-states every owned input, so the server never holds Ready True without AssociateBMH', () => {
  // The snapshot and the desired state agree on AssociateBMH True; only the Ready summary changes.
  const before = [c('Ready', 'False', 'w'), c('AssociateBMH', 'True')];
  const after = [c('Ready', 'True', undefined, T1), c('AssociateBMH', 'True')];
  const owned = new Set(['Ready', 'AssociateBMH']);
  const statusOf = (list: Condition[]) => list.map((x) => `${x.type}=${x.status}${x.reason ? `/${x.reason}` : ''}`).join(' ');
  const cases: [what: string, server: Condition[], want: string][] = [
    ['the server lost AssociateBMH since the snapshot', [c('Ready', 'False', 'w')], 'Ready=True AssociateBMH=True'],
    ['the server moved AssociateBMH since the snapshot', [c('Ready', 'False', 'w'), c('AssociateBMH', 'False', 'lost')], 'Ready=True AssociateBMH=True'],
    ['the server agrees with the snapshot', [c('Ready', 'False', 'w'), c('AssociateBMH', 'True')], 'Ready=True AssociateBMH=True'],
    [
      "another writer's condition and an owned one we do not set stay",
      [c('Theirs', 'False', 't'), c('Paused', 'True')],
      'Ready=True AssociateBMH=True Paused=True Theirs=False/t',
    ],
  ];
  for (const [what, server, want] of cases) {
    const changes = withOwnedState(diffConditions(before, after), after, new Set([...owned, 'Paused']));
    assert.is(statusOf(applyConditionChanges(server, changes, v1beta1Dialect, new Set([...owned, 'Paused']))), want, what);
  }
  // Only what changed (before this fix) leaves the summary without its input:
  assert.is(statusOf(applyConditionChanges([c('Ready', 'False', 'w')], diffConditions(before, after), v1beta1Dialect, owned)), 'Ready=True');
  // Not owned: an unchanged condition is not re-stated; re-stating keeps the server's transition time.
  assert.equal(withOwnedState(diffConditions(before, after), after, new Set(['Ready'])).map((ch) => ch.type), ['Ready']);
  const kept = applyConditionChanges(
    [c('AssociateBMH', 'True', undefined, T0)],
    withOwnedState([], [c('AssociateBMH', 'True', undefined, T1)], owned),
    v1beta1Dialect,
    owned,
  );
  assert.is(kept[0]?.lastTransitionTime, T0);
});

test('v1beta2 dialect: observedGeneration is part of the state; Available and Ready sort first', () => {
  const m = (type: string, status: string, reason: string, observedGeneration?: number): MetaV1Condition => ({
    type,
    status,
    reason,
    message: '',
    lastTransitionTime: T0,
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  });
  const changes = diffConditions([m('Paused', 'False', 'NotPaused', 1)], [m('Paused', 'False', 'NotPaused', 2), m('Ready', 'True', 'Ready')]);
  assert.equal(conflictTypes(() => applyConditionChanges([m('Paused', 'False', 'NotPaused', 3)], changes, v1beta2Dialect)), ['Paused']);
  const merged = applyConditionChanges([m('Paused', 'False', 'NotPaused', 1), m('Available', 'True', 'X')], changes, v1beta2Dialect);
  assert.equal(merged.map((x) => x.type), ['Available', 'Ready', 'Paused']);
});

test.run();
