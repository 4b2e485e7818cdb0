import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { planCleaningMode, templateCleaningMode } from './cleaning-mode.ts';
import { machine, template } from './testing.ts';

const test = suite('automatedCleaningMode propagation plan (T-6, N-2, E-35)');

test("T-6: the template's mode is read from spec.template.spec.automatedCleaningMode", () => {
  assert.equal(templateCleaningMode(template('t')), { kind: 'unset' });
  assert.equal(templateCleaningMode(template('t', { mode: 'metadata' })), { kind: 'valid', mode: 'metadata' });
  assert.equal(templateCleaningMode(template('t', { mode: 'disabled' })), { kind: 'valid', mode: 'disabled' });
});

test('bad input: an unknown mode is invalid with a message naming the field and the supported values', () => {
  for (const bad of ['Disabled', '', 'erase']) {
    const decision = templateCleaningMode(template('t', { mode: bad }));
    assert.is(decision.kind, 'invalid', bad);
    assert.is(
      decision.kind === 'invalid' && decision.message,
      `spec.template.spec.automatedCleaningMode: Unsupported value: ${JSON.stringify(bad)}: supported values: "metadata", "disabled"`,
    );
  }
  const plan = planCleaningMode(template('tmpl', { mode: 'erase' }), [machine('a')]);
  assert.is(plan.kind, 'invalid', 'nothing is written for an invalid mode');
});

test('T-6/N-2: unset in the template ⇒ machines untouched, whatever they have', () => {
  assert.equal(planCleaningMode(template('tmpl'), [machine('a', { mode: 'disabled' }), machine('b')]), { kind: 'unset' });
});

test('E-35: only machines whose mode differs are planned; machines already in sync count as such', () => {
  const machines = [machine('c', { mode: 'metadata' }), machine('a'), machine('b', { mode: 'disabled' }), machine('d', { mode: 'disabled' })];
  const plan = planCleaningMode(template('tmpl', { mode: 'disabled' }), machines);
  assert.is(plan.kind, 'propagate');
  if (plan.kind !== 'propagate') return;
  assert.is(plan.mode, 'disabled');
  assert.equal(plan.updates.map((m) => m.metadata.name), ['a', 'c'], 'unset and different, in name order');
  assert.is(plan.inSync, 2);
  assert.equal(planCleaningMode(template('tmpl', { mode: 'disabled' }), [machines[2]!, machines[3]!]), {
    kind: 'propagate',
    mode: 'disabled',
    updates: [],
    inSync: 2,
    paused: 0,
  });
});

test('T-6: machines of another template, another groupkind or another namespace are never planned', () => {
  const machines = [
    machine('other-template', { from: 'other' }),
    machine('other-kind', { groupKind: 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io' }),
    machine('no-groupkind', { groupKind: null }),
    machine('other-namespace', { namespace: 'elsewhere' }),
    machine('not-cloned', { from: null, groupKind: null }),
    machine('ours'),
  ];
  const plan = planCleaningMode(template('tmpl', { mode: 'metadata' }), machines);
  assert.equal(plan.kind === 'propagate' && plan.updates.map((m) => m.metadata.name), ['ours']);
  assert.is(plan.kind === 'propagate' && plan.inSync, 0);
});

test('paused machines (cluster.x-k8s.io/paused, any value) are not written while paused; they are counted', () => {
  const paused = { 'cluster.x-k8s.io/paused': '' };
  const machines = [machine('a', { annotations: paused }), machine('b', { mode: 'disabled', annotations: paused }), machine('c')];
  const plan = planCleaningMode(template('tmpl', { mode: 'disabled' }), machines);
  assert.equal(plan.kind === 'propagate' && plan.updates.map((m) => m.metadata.name), ['c']);
  assert.equal(plan.kind === 'propagate' && [plan.inSync, plan.paused], [1, 1]);
});

test.run();
