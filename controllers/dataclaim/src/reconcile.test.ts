import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { guard } from './guards.ts';
import { DATA_CLAIM_FINALIZER, METAL3_MACHINE_FINALIZER } from './names.ts';
import { planFor } from './reconcile.ts';
import { claim, cluster, template } from './testing.ts';

const test = suite('planFor: the phases of each decision, in order');

const names = (decision: Parameters<typeof planFor>[0]) => {
  const plan = planFor(decision);
  return { phases: plan.phases.map((p) => p.run.name), settle: plan.settle.map((p) => p.run.name) };
};

test('DT-10/DT-11: allocate — the finalizer first, then find or make the Metal3Data; giving back and the ledger once the status binds', () => {
  assert.equal(names(guard({ claim: claim('c'), template: template('tmpl'), cluster: cluster() })), {
    phases: ['addFinalizer', 'findData', 'allocate'],
    settle: ['giveBack', 'recordInLedger'],
  });
});

test('DT-15: release — the Metal3Data, then the ledger entry; our finalizer once the status no longer names the Metal3Data', () => {
  const deleting = claim('c', { deleting: true, finalizers: [METAL3_MACHINE_FINALIZER, DATA_CLAIM_FINALIZER] });
  assert.equal(names(guard({ claim: deleting, template: template('tmpl'), cluster: cluster() })), {
    phases: ['releaseDatas', 'dropLedgerEntry'],
    settle: ['removeFinalizer'],
  });
});

test('DT-5/DT-6/bad input: no phase (the status write alone says what there is to say)', () => {
  for (
    const decision of [
      guard({ claim: claim('c'), template: template('tmpl'), cluster: undefined }),
      guard({ claim: claim('c'), template: template('tmpl'), cluster: cluster('cluster', true) }),
      guard({ claim: claim('c'), template: undefined, cluster: undefined }),
      guard({ claim: claim('c', { deleting: true }), template: undefined, cluster: undefined }),
    ]
  ) {
    assert.equal(names(decision), { phases: [], settle: [] }, decision.kind);
  }
});

test.run();
