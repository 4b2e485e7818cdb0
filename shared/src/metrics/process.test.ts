import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ProcessFigures, readProcessFigures, registerProcessMetrics } from './process.ts';
import { Registry } from './registry.ts';

const test = suite('process metrics');

const figures = (over: Partial<ProcessFigures> = {}): ProcessFigures => ({
  rss: 100,
  heapTotal: 50,
  heapUsed: 30,
  external: 7,
  arrayBuffers: 3,
  cpuSeconds: 1.5,
  spaces: [{ name: 'new_space', size: 4, used: 1 }],
  ...over,
});

const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]);

test('each scrape reads the process again: memory as gauges, CPU as a counter that only grows', () => {
  const r = new Registry();
  let now = figures();
  registerProcessMetrics(r, () => now);
  let text = r.render();
  assert.is(value(text, 'process_resident_memory_bytes'), 100);
  assert.is(value(text, 'nodejs_heap_size_used_bytes'), 30);
  assert.is(value(text, 'nodejs_heap_space_size_total_bytes{space="new_space"}'), 4);
  assert.is(value(text, 'process_cpu_seconds_total'), 1.5);
  assert.ok(value(text, 'process_start_time_seconds') > 1_600_000_000);
  now = figures({ rss: 120, cpuSeconds: 2 });
  text = r.render();
  assert.is(value(text, 'process_resident_memory_bytes'), 120);
  assert.is(value(text, 'process_cpu_seconds_total'), 2);
  now = figures({ cpuSeconds: 1 }); // never backwards
  assert.is(value(r.render(), 'process_cpu_seconds_total'), 2);
});

test('registered twice on one registry, the CPU counter still counts each second once (it is its own record)', () => {
  const r = new Registry();
  registerProcessMetrics(r, () => figures({ cpuSeconds: 3 }));
  registerProcessMetrics(r, () => figures({ cpuSeconds: 3 }));
  assert.is(value(r.render(), 'process_cpu_seconds_total'), 3);
  assert.is(value(r.render(), 'process_cpu_seconds_total'), 3);
});

test('the real figures of this process are plausible', () => {
  const f = readProcessFigures();
  assert.ok(f.rss > f.heapUsed && f.heapTotal >= f.heapUsed && f.heapUsed > 0);
  assert.ok(f.cpuSeconds > 0);
});

test.run();
