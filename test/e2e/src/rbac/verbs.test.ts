import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clusterRoleOf, CONTROLLERS, grants, rulesWithout, verbCases } from './verbs.ts';

const test = suite('RBAC verb cases');

test('every granted verb of every controller, and each removal takes away exactly that verb', () => {
  for (const controller of CONTROLLERS) {
    const role = clusterRoleOf(controller);
    const cases = verbCases(controller, role);
    assert.ok(cases.length > 0, controller);
    for (const c of cases) {
      const reduced = rulesWithout(role, c);
      assert.not.ok(grants(reduced, c), `${controller}: ${c.verb} ${c.resource} removed`);
      for (const other of cases) {
        if (other !== c) assert.ok(grants(reduced, other), `${controller}: removing ${c.verb} ${c.resource} keeps ${other.verb} ${other.resource}`);
      }
    }
  }
});

test('resources are named as RBAC and the apiserver name them', () => {
  const names = verbCases('cluster').map((c) => `${c.verb} ${c.resource}`);
  assert.ok(names.includes('patch metal3clusters/status.infrastructure.cluster.x-k8s.io'));
  assert.ok(names.includes('create events'));
});

test.run();
