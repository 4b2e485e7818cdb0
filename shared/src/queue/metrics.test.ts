import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock/clock.ts';
import { type Counter, type Gauge, type Histogram, Registry } from '../metrics/registry.ts';
import { WORKQUEUE_DURATION_BUCKETS, workQueueMetrics } from './metrics.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';

const test = suite('work queue metrics');
const labels = { name: 'metal3machine', controller: 'metal3machine' };

function setup() {
  const clock = new ManualClock();
  const registry = new Registry();
  const q = new RateLimitingQueue({ clock, metrics: workQueueMetrics(registry, 'metal3machine') });
  const gauge = (n: string) => registry.gauge(n, '', ['name', 'controller']) as Gauge;
  const counter = (n: string) => registry.counter(n, '', ['name', 'controller']) as Counter;
  const histogram = (n: string) => registry.histogram(n, '', ['name', 'controller'], []) as Histogram;
  return { clock, registry, q, gauge, counter, histogram };
}

test('every workqueue family is exposed under the client-go name with {name,controller} from the start', () => {
  const { registry } = setup();
  const text = registry.render();
  for (
    const name of [
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
      'workqueue_retries_total',
    ]
  ) {
    assert.ok(text.includes(`# TYPE ${name} `), name);
  }
  assert.ok(text.includes('workqueue_depth{name="metal3machine",controller="metal3machine"} 0'));
  assert.ok(text.includes('workqueue_adds_total{name="metal3machine",controller="metal3machine"} 0'));
});

test('buckets are exponentialBuckets(1e-8, 10, 10)', () => {
  assert.is(WORKQUEUE_DURATION_BUCKETS.length, 10);
  assert.is(WORKQUEUE_DURATION_BUCKETS[0], 1e-8);
  assert.ok(Math.abs(WORKQUEUE_DURATION_BUCKETS[9]! - 10) < 1e-9);
});

test('depth and adds count pending keys (coalesced adds count once), durations are observed', async () => {
  const { clock, q, gauge, counter, histogram } = setup();
  for (let i = 0; i < 10; i++) q.add('ns/a');
  q.add('ns/b');
  assert.is(gauge('workqueue_depth').get(labels), 2);
  assert.is(counter('workqueue_adds_total').get(labels), 2);
  await clock.advance(250);
  const k = (await q.get())!;
  assert.is(gauge('workqueue_depth').get(labels), 1);
  const queued = histogram('workqueue_queue_duration_seconds');
  assert.is(queued.count(labels), 1);
  assert.ok(queued.render().some((l) => l.startsWith('workqueue_queue_duration_seconds_sum') && l.endsWith(' 0.25')));
  await clock.advance(1200);
  // The in-flight gauges move while the key is still being processed.
  assert.is(gauge('workqueue_longest_running_processor_seconds').get(labels), 1);
  assert.is(gauge('workqueue_unfinished_work_seconds').get(labels), 1);
  q.done(k);
  assert.is(histogram('workqueue_work_duration_seconds').count(labels), 1);
  assert.is(gauge('workqueue_longest_running_processor_seconds').get(labels), 0);
});

test('retries count every delayed add; a pending key folded into a backoff leaves the depth', async () => {
  const { clock, q, gauge, counter } = setup();
  q.add('k');
  const k = (await q.get())!;
  q.add('k');
  assert.is(gauge('workqueue_depth').get(labels), 1, 'dirty while processing counts, as in client-go');
  q.addRateLimited(k);
  q.done(k);
  assert.is(gauge('workqueue_depth').get(labels), 0);
  q.addAfter('j', 10);
  assert.is(counter('workqueue_retries_total').get(labels), 2);
  await clock.advance(10);
  assert.is(gauge('workqueue_depth').get(labels), 2);
});

test.run();
