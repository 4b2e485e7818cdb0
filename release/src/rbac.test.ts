// The install RBAC of a controller carries exactly the rules of its deploy/rbac.yaml under config/'s
// names, bound to its ServiceAccount; a source that is not one ClusterRole plus one Role is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { installRbac, RbacSourceError } from './rbac.ts';

const clusterRules = [{ apiGroups: ['x'], resources: ['ys'], verbs: ['list', 'watch'] }];
const leaseRules = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
const source = [
  { kind: 'ClusterRole', metadata: { name: 'whatever' }, rules: clusterRules },
  { kind: 'Role', metadata: { name: 'other', namespace: 'capm3-system' }, rules: leaseRules },
];

test('names, rules, subjects and namespace of the install RBAC', () => {
  const [role, binding, lease, leaseBinding] = installRbac('template', source, 'src.yaml') as Record<string, unknown>[];
  assert.equal(role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'metal3-ts-template-manager' },
    rules: clusterRules,
  });
  assert.equal(binding?.['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metal3-ts-template-manager' });
  assert.equal(binding?.['subjects'], [{ kind: 'ServiceAccount', name: 'metal3-ts-template-manager', namespace: 'metal3-ts-system' }]);
  assert.equal(lease?.['metadata'], { name: 'metal3-ts-template-leader-election', namespace: 'metal3-ts-system' });
  assert.equal(lease?.['rules'], leaseRules);
  assert.equal(leaseBinding?.['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'metal3-ts-template-leader-election' });
});

test('a source without its Role, with two ClusterRoles or with no rules is refused, naming the file', () => {
  const cases: [unknown[], RegExp][] = [
    [[source[0]], /src.yaml: expected exactly one Role, found 0/],
    [[source[0], source[0], source[1]], /src.yaml: expected exactly one ClusterRole, found 2/],
    [[{ kind: 'ClusterRole', rules: [] }, source[1]], /src.yaml: the ClusterRole has no rules/],
  ];
  for (const [documents, message] of cases) {
    assert.throws(() => installRbac('cluster', documents, 'src.yaml'), (e: unknown) => e instanceof RbacSourceError && message.test((e as Error).message));
  }
});

test.run();
