// DT-6…DT-8, §0.4: which named phases each guard decision of a template reconcile runs, and the
// result its observations come to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TemplateGuard } from './guards.ts';
import { planFor, templateResult } from './reconcile.ts';
import { cluster, template } from '../testing.ts';

const test = suite('Metal3DataTemplate reconcile plan');

const rows: [string, TemplateGuard, string[]][] = [
  ['DT-6/DT-8: a live template: owner reference, then finalizer', { kind: 'Reconcile', cluster: cluster() }, ['owner reference', 'finalizer']],
  ['DT-7: a deletion waits for its users, then lets go', { kind: 'Delete' }, ['users', 'finalizer removal']],
  ['DT-6: paused: nothing', { kind: 'Paused' }, []],
  ['DT-5: no Cluster: nothing', { kind: 'WaitForCluster', clusterName: 'c1' }, []],
  ['not ours: nothing', { kind: 'NotOurs' }, []],
];
for (const [title, decision, steps] of rows) {
  test(title, () => assert.equal(planFor(decision).map((p) => p.step), steps));
}

test('DT-7 (changed): waiting for users keeps the safety-net requeue; anything else is done', () => {
  const t = template();
  assert.equal(templateResult({ template: t, outcome: { kind: 'AwaitingUsers', message: 'm' }, errors: [] }, 30_000), { requeueAfterMs: 30_000 });
  assert.equal(templateResult({ template: t, errors: [] }, 30_000), {});
});

test.run();
