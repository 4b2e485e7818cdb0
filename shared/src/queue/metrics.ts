// The work queue's Prometheus metrics, with client-go/controller-runtime names, help and buckets so
// existing dashboards work unchanged. Labels are `{name, controller}`, both the controller name, as
// controller-runtime sets them. controller-runtime's priority queue adds a `priority` label to
// `workqueue_depth`; this queue has no priorities, so the label is left out rather than always "".
import { type Counter, exponentialBuckets, type Gauge, type Histogram, type Registry } from '../metrics/registry.ts';

/** What the queue reports; the controller passes one per queue, tests may pass their own. */
export interface WorkQueueMetrics {
  /** A key became pending (entered the dirty set). */
  add(key: string, now: number): void;
  /** A pending key was dropped before a worker took it (folded into a backoff): undoes its `add`. */
  withdraw(key: string): void;
  /** A worker took `key`. */
  get(key: string, now: number): void;
  /** The worker finished `key`. */
  done(key: string, now: number): void;
  /** A key was handed back with a delay (`addAfter` or `addRateLimited`). */
  retry(): void;
  /** Recomputes the in-flight gauges; the queue calls it while work is in progress. */
  updateUnfinishedWork(now: number): void;
}

export const noopWorkQueueMetrics: WorkQueueMetrics = {
  add() {},
  withdraw() {},
  get() {},
  done() {},
  retry() {},
  updateUnfinishedWork() {},
};

/** client-go's `exponentialBuckets(1e-8, 10, 10)`: 10 ns … 10 s. */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = exponentialBuckets(1e-8, 10, 10);

interface Families {
  depth: Gauge;
  adds: Counter;
  queueDuration: Histogram;
  workDuration: Histogram;
  unfinished: Gauge;
  longest: Gauge;
  retries: Counter;
}

function families(registry: Registry): Families {
  const labels = ['name', 'controller'];
  return {
    depth: registry.gauge('workqueue_depth', 'Current depth of workqueue', labels),
    adds: registry.counter('workqueue_adds_total', 'Total number of adds handled by workqueue', labels),
    queueDuration: registry.histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      labels,
      WORKQUEUE_DURATION_BUCKETS,
    ),
    workDuration: registry.histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
      labels,
      WORKQUEUE_DURATION_BUCKETS,
    ),
    unfinished: registry.gauge(
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
      labels,
    ),
    longest: registry.gauge(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      labels,
    ),
    retries: registry.counter('workqueue_retries_total', 'Total number of retries handled by workqueue', labels),
  };
}

/** Metrics of the queue named `name` (the controller's name) on `registry`. */
export function workQueueMetrics(registry: Registry, name: string, controller = name): WorkQueueMetrics {
  const f = families(registry);
  const labels = { name, controller };
  // Series exist from the start, so a dashboard shows 0 rather than "no data" for an idle queue.
  f.depth.set(labels, 0);
  f.adds.touch(labels);
  f.retries.touch(labels);
  f.unfinished.set(labels, 0);
  f.longest.set(labels, 0);

  const addedAt = new Map<string, number>();
  const startedAt = new Map<string, number>();
  const seconds = (ms: number) => Math.max(0, ms) / 1000;

  return {
    add(key, now) {
      f.adds.inc(labels);
      f.depth.inc(labels);
      if (!addedAt.has(key)) addedAt.set(key, now);
    },
    withdraw(key) {
      f.depth.dec(labels);
      addedAt.delete(key);
    },
    get(key, now) {
      f.depth.dec(labels);
      startedAt.set(key, now);
      const added = addedAt.get(key);
      if (added !== undefined) {
        f.queueDuration.observe(labels, seconds(now - added));
        addedAt.delete(key);
      }
    },
    done(key, now) {
      const started = startedAt.get(key);
      if (started !== undefined) {
        f.workDuration.observe(labels, seconds(now - started));
        startedAt.delete(key);
      }
    },
    retry() {
      f.retries.inc(labels);
    },
    updateUnfinishedWork(now) {
      let total = 0;
      let longest = 0;
      for (const started of startedAt.values()) {
        const running = seconds(now - started);
        total += running;
        longest = Math.max(longest, running);
      }
      f.unfinished.set(labels, total);
      f.longest.set(labels, longest);
    },
  };
}
