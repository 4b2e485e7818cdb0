import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricSum, requestKind, tallyKinds } from './request-kind.ts';

const NS = '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/bench/metal3machines';
const M3M = 'metal3machines.infrastructure.cluster.x-k8s.io';
const cases: [string, string, string, string][] = [
  ['GET', `${NS}?limit=500`, 'list', M3M],
  ['GET', `${NS}?watch=true&resourceVersion=12&allowWatchBookmarks=true`, 'watch', M3M],
  ['GET', `${NS}/m-1`, 'get', M3M],
  ['PATCH', `${NS}/m-1/status`, 'patch', `${M3M}/status`],
  ['PUT', `${NS}/m-1`, 'update', M3M],
  ['POST', '/api/v1/namespaces/bench/events', 'create', 'events'],
  ['DELETE', '/api/v1/namespaces/bench/secrets/s', 'delete', 'secrets'],
  ['DELETE', '/api/v1/namespaces/bench/secrets', 'deletecollection', 'secrets'],
  ['GET', '/api/v1/namespaces/bench', 'get', 'namespaces'],
  ['GET', '/api/v1/nodes?watch=true', 'watch', 'nodes'],
  ['GET', '/apis/cluster.x-k8s.io/v1beta1/machines', 'list', 'machines.cluster.x-k8s.io'],
  ['GET', '/apis/ipam.metal3.io/v1alpha1/namespaces/b/ipaddresses?watch=true', 'watch', 'ipaddresses.ipam.metal3.io'],
  ['GET', '/version', 'get', '/version'],
];
for (const [method, path, verb, resource] of cases) {
  test(`requestKind: ${method} ${path} is ${verb} ${resource}`, () => {
    assert.equal(requestKind(method, path), { verb, resource });
  });
}

test('tallyKinds: counts per verb and resource, most first', () => {
  const tally = tallyKinds([requestKind('GET', NS), requestKind('GET', `${NS}?watch=true`), requestKind('GET', `${NS}?limit=1`)]);
  assert.equal(tally, [[`list ${M3M}`, 2], [`watch ${M3M}`, 1]]);
});

test('metricSum: sums the samples whose labels match, ignores other families and comments', () => {
  const text = [
    '# HELP workqueue_depth Current depth of workqueue',
    'workqueue_depth{name="machine",controller="machine"} 2',
    'workqueue_depth{name="cluster",controller="cluster"} 1',
    'workqueue_depth_other{name="machine"} 9',
    'controller_runtime_reconcile_total{controller="machine",result="success"} 10',
    'controller_runtime_reconcile_total{controller="machine",result="error"} 1',
    'up 1',
  ].join('\n');
  assert.is(metricSum(text, 'workqueue_depth'), 3);
  assert.is(metricSum(text, 'controller_runtime_reconcile_total', { controller: 'machine' }), 11);
  assert.is(metricSum(text, 'controller_runtime_reconcile_total', { result: 'error' }), 1);
  assert.is(metricSum(text, 'up'), 1);
  assert.is(metricSum(text, 'missing'), 0);
});

test.run();
