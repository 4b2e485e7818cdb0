// The union of rule lists (rbac-union.ts) as a table: it grants every grant of every input and
// nothing else, merges verbs of one resource, keeps resourceNames apart, and is stable.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Rule } from './rbac.ts';
import { grantsOf, sameGrants, unionRules } from './rbac-union.ts';

const cases: { name: string; inputs: Rule[][]; want: Rule[] }[] = [
  {
    name: 'verbs of one resource from two controllers merge',
    inputs: [[{ apiGroups: ['g'], resources: ['a'], verbs: ['list', 'watch'] }], [{ apiGroups: ['g'], resources: ['a'], verbs: ['patch', 'watch'] }]],
    want: [{ apiGroups: ['g'], resources: ['a'], verbs: ['list', 'patch', 'watch'] }],
  },
  {
    name: 'resources with the same verbs share a rule; the core group is ""',
    inputs: [[{ resources: ['events'], verbs: ['create', 'patch'] }], [{ apiGroups: ['g'], resources: ['b', 'a'], verbs: ['get'] }]],
    want: [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }, { apiGroups: ['g'], resources: ['a', 'b'], verbs: ['get'] }],
  },
  {
    name: 'a rule limited to some names stays apart from the unlimited one',
    inputs: [[{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['x'] }], [{
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['list'],
    }]],
    want: [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['x'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
    ],
  },
];

for (const c of cases) {
  test(`unionRules: ${c.name}`, () => {
    const got = unionRules(c.inputs);
    assert.equal(got, c.want);
    assert.ok(sameGrants(got, c.inputs.flat()), 'grants exactly the inputs');
    assert.equal(unionRules([...c.inputs].reverse()), got, 'order of inputs does not matter');
  });
}

test('sameGrants tells a missing verb', () => {
  const a: Rule[] = [{ apiGroups: ['g'], resources: ['a'], verbs: ['get', 'list'] }];
  assert.ok(sameGrants(a, [{ apiGroups: ['g'], resources: ['a'], verbs: ['list'] }, { apiGroups: ['g'], resources: ['a'], verbs: ['get'] }]));
  assert.not.ok(sameGrants(a, [{ apiGroups: ['g'], resources: ['a'], verbs: ['get'] }]));
  assert.is(grantsOf(a).length, 2);
});

test.run();
