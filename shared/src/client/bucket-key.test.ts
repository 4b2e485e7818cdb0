import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bucketKeyOf, NON_RESOURCE_BUCKET } from './bucket-key.ts';

const test = suite('bucketKeyOf');

const cases: [what: string, path: string, bucket: string][] = [
  ['a core get', '/api/v1/namespaces/ns/secrets/s', 'core/v1/secrets'],
  ['a core list with its query', '/api/v1/namespaces/ns/secrets?limit=500&labelSelector=a%3Db', 'core/v1/secrets'],
  ['a core list in all namespaces', '/api/v1/secrets', 'core/v1/secrets'],
  ['a core watch', '/api/v1/namespaces/ns/secrets?watch=true&resourceVersion=5', 'core/v1/secrets'],
  ['a legacy /watch/ path', '/api/v1/watch/namespaces/ns/secrets', 'core/v1/secrets'],
  ['a create (collection POST)', '/api/v1/namespaces/ns/events', 'core/v1/events'],
  ['a group get', '/apis/metal3.io/v1alpha1/namespaces/ns/baremetalhosts/h-1', 'metal3.io/v1alpha1/baremetalhosts'],
  ['a group patch of status: the parent kind', '/apis/metal3.io/v1alpha1/namespaces/ns/baremetalhosts/h-1/status', 'metal3.io/v1alpha1/baremetalhosts'],
  [
    'a group watch in all namespaces',
    '/apis/infrastructure.cluster.x-k8s.io/v1beta1/metal3machines?watch=true',
    'infrastructure.cluster.x-k8s.io/v1beta1/metal3machines',
  ],
  [
    'another version of a group is another kind',
    '/apis/infrastructure.cluster.x-k8s.io/v1beta2/metal3machines',
    'infrastructure.cluster.x-k8s.io/v1beta2/metal3machines',
  ],
  ['a cluster-scoped kind', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', 'rbac.authorization.k8s.io/v1/clusterroles'],
  ['a Node (cluster-scoped core)', '/api/v1/nodes/n-1', 'core/v1/nodes'],
  ['the namespaces list', '/api/v1/namespaces', 'core/v1/namespaces'],
  ['one namespace', '/api/v1/namespaces/ns', 'core/v1/namespaces'],
  ["a namespace's status", '/api/v1/namespaces/ns/status', 'core/v1/namespaces'],
  ["a namespace's finalize", '/api/v1/namespaces/ns/finalize', 'core/v1/namespaces'],
  ['a pod eviction: the pod kind', '/api/v1/namespaces/ns/pods/p/eviction', 'core/v1/pods'],
  ['a cluster-scoped review POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'authentication.k8s.io/v1/selfsubjectreviews'],
  ['an escaped name', '/api/v1/namespaces/ns/configmaps/a%2Fb', 'core/v1/configmaps'],
  ['discovery of a group version', '/apis/metal3.io/v1alpha1', NON_RESOURCE_BUCKET],
  ['discovery of the groups', '/apis', NON_RESOURCE_BUCKET],
  ['discovery of core', '/api/v1', NON_RESOURCE_BUCKET],
  ['the server version', '/version', NON_RESOURCE_BUCKET],
  ['a health check with a query', '/readyz?verbose', NON_RESOURCE_BUCKET],
  ['the root', '/', NON_RESOURCE_BUCKET],
];

for (const [what, path, bucket] of cases) {
  test(`${what}: ${path} → ${bucket}`, () => {
    assert.is(bucketKeyOf(path), bucket);
  });
}

test('namespaces never split a kind: the same kind in two namespaces and in all of them is one bucket', () => {
  const keys = new Set(['/api/v1/namespaces/a/secrets/x', '/api/v1/namespaces/b/secrets', '/api/v1/secrets?watch=true'].map(bucketKeyOf));
  assert.equal([...keys], ['core/v1/secrets']);
});

test.run();
