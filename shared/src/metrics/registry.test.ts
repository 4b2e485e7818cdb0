import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exponentialBuckets, Registry } from './registry.ts';

const test = suite('metrics registry');

test('counters render one series per label set, in the text exposition format', () => {
  const r = new Registry();
  const c = r.counter('controller_runtime_reconcile_total', 'Total reconciles', ['controller', 'result']);
  c.touch({ controller: 'm3m', result: 'error' });
  c.inc({ controller: 'm3m', result: 'success' });
  c.inc({ controller: 'm3m', result: 'success' }, 2);
  assert.is(c.get({ controller: 'm3m', result: 'success' }), 3);
  assert.is(
    r.render(),
    [
      '# HELP controller_runtime_reconcile_total Total reconciles',
      '# TYPE controller_runtime_reconcile_total counter',
      'controller_runtime_reconcile_total{controller="m3m",result="error"} 0',
      'controller_runtime_reconcile_total{controller="m3m",result="success"} 3',
      '',
    ].join('\n'),
  );
});

test('histograms are cumulative and carry _sum, _count and +Inf', () => {
  const r = new Registry();
  const h = r.histogram('work_seconds', 'Work', ['name'], [0.1, 1]);
  h.observe({ name: 'q' }, 0.05);
  h.observe({ name: 'q' }, 0.5);
  h.observe({ name: 'q' }, 5);
  const text = r.render();
  assert.ok(text.includes('work_seconds_bucket{name="q",le="0.1"} 1'));
  assert.ok(text.includes('work_seconds_bucket{name="q",le="1"} 2'));
  assert.ok(text.includes('work_seconds_bucket{name="q",le="+Inf"} 3'));
  assert.ok(text.includes('work_seconds_sum{name="q"} 5.55'));
  assert.ok(text.includes('work_seconds_count{name="q"} 3'));
});

test('the same name registers once; a different type is refused', () => {
  const r = new Registry();
  const a = r.gauge('workqueue_depth', 'Depth', ['name']);
  assert.is(r.gauge('workqueue_depth', 'Depth', ['name']), a);
  assert.throws(() => r.counter('workqueue_depth', 'Depth'), /already registered as a gauge/);
});

test('label values are escaped', () => {
  const r = new Registry();
  r.gauge('g', 'G', ['v']).set({ v: 'a"b\\c\nd' }, 1);
  assert.ok(r.render().includes('g{v="a\\"b\\\\c\\nd"} 1'));
});

test('exponential buckets follow start * factor^i', () => {
  assert.equal(exponentialBuckets(1, 10, 4), [1, 10, 100, 1000]);
});

test.run();
