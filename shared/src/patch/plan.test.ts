// What goes where: writable metadata + spec to the resource, status minus condition lists to
// /status, condition changes apart for the three-way merge.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Metal3Machine, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isEmptyPlan, planPatch } from './plan.ts';

const test = suite('patch plan');
const T = '2020-01-01T00:00:00Z';

const machine = (): Metal3Machine =>
  newMetal3Machine({
    metadata: { name: 'm', namespace: 'ns', resourceVersion: '5', uid: 'u', generation: 2, labels: { a: '1' } },
    spec: { providerID: 'metal3://x', failureDomain: 'rack-1' },
    status: {
      ready: false,
      conditions: [{ type: 'Ready', status: 'False', severity: 'Info', reason: 'R', lastTransitionTime: T }],
      v1beta2: { conditions: [{ type: 'Ready', status: 'False', reason: 'NotReady', message: '', lastTransitionTime: T }] },
    },
  });

test('an unchanged object plans nothing', () => {
  assert.ok(isEmptyPlan(planPatch(machine(), machine(), true)));
});

test('server-owned metadata is never patched; writable metadata and spec go to the main patch', () => {
  const after = machine();
  after.metadata.resourceVersion = '99';
  after.metadata.uid = 'other';
  after.metadata.labels = { b: '2' };
  after.metadata.finalizers = ['f'];
  delete after.spec!.failureDomain;
  const plan = planPatch(machine(), after, true);
  assert.equal(plan.main, { metadata: { labels: { a: null, b: '2' }, finalizers: ['f'] }, spec: { failureDomain: null } });
  assert.is(plan.status, undefined);
});

test('status goes to /status without the condition lists; condition changes are planned apart', () => {
  const after = machine();
  after.status!.ready = true;
  after.status!.conditions![0]!.status = 'True';
  after.status!.v1beta2!.conditions = [];
  const plan = planPatch(machine(), after, true);
  assert.is(plan.main, undefined);
  assert.equal(plan.status, { status: { ready: true } });
  assert.equal(plan.conditions.map((c) => c.type), ['Ready']);
  assert.equal(plan.v1beta2Conditions.map((c) => [c.type, c.after]), [['Ready', undefined]]);
});

test('writing conditions for the first time plans no status patch (no empty v1beta2 block)', () => {
  const before = newMetal3Machine({ metadata: { name: 'm', namespace: 'ns' }, spec: {} });
  const after = structuredClone(before);
  after.status = { v1beta2: { conditions: [{ type: 'Paused', status: 'False', reason: 'NotPaused', message: '', lastTransitionTime: T }] } };
  const plan = planPatch(before, after, true);
  assert.is(plan.status, undefined);
  assert.is(plan.v1beta2Conditions.length, 1);
});

test('kinds without a status subresource get the status in the main patch', () => {
  const after = machine();
  after.status!.phase = 'Provisioned';
  const plan = planPatch(machine(), after, false);
  assert.equal(plan.main, { status: { phase: 'Provisioned' } });
  assert.is(plan.status, undefined);
});

test.run();
