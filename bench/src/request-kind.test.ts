import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestOf } from '@metal3-ts/shared/controller/refusal';
import { metricSum, tallyKinds } from './request-kind.ts';

const NS = '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/bench/metal3machines';
const M3M = 'metal3machines.infrastructure.cluster.x-k8s.io';

test('tallyKinds: counts per verb and resource, most first', () => {
  const tally = tallyKinds([requestOf('GET', NS), requestOf('GET', `${NS}?watch=true`), requestOf('GET', `${NS}?limit=1`)]);
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
