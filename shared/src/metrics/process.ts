// The process's own figures on /metrics, read when scraped, under the names Prometheus users know
// from client_golang and prom-client: resident memory, CPU, start time, and V8's heap (in total, per
// space) with the memory outside it. Operators watch memory by these; the benchmarks read them to say
// where a process's memory goes (issue 20). Values come from process.memoryUsage(), cpuUsage() and
// node:v8 (Deno 2 has them too); a runtime without heap-space statistics just has no per-space series.
import process from 'node:process';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Registry } from './registry.ts';

export interface ProcessFigures {
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** User + system CPU seconds since the process started. */
  readonly cpuSeconds: number;
  /** V8 heap spaces: bytes committed and used. */
  readonly spaces: readonly { readonly name: string; readonly size: number; readonly used: number }[];
}

export function readProcessFigures(): ProcessFigures {
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  let spaces: ProcessFigures['spaces'] = [];
  try {
    spaces = getHeapSpaceStatistics().map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size }));
  } catch {
    // Not every runtime has it; the totals above still tell the heap.
  }
  return {
    rss: m.rss,
    heapTotal: m.heapTotal,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    spaces,
  };
}

/** Registers the process metrics on `registry`, refreshed from `read` at every scrape. */
export function registerProcessMetrics(registry: Registry, read: () => ProcessFigures = readProcessFigures): void {
  const rss = registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
  const cpu = registry.counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.');
  const start = registry.gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.');
  const heapTotal = registry.gauge('nodejs_heap_size_total_bytes', 'V8 heap committed, in bytes.');
  const heapUsed = registry.gauge('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes.');
  const external = registry.gauge('nodejs_external_memory_bytes', 'Memory of objects outside the V8 heap bound to it (buffers), in bytes.');
  const arrayBuffers = registry.gauge('nodejs_array_buffers_bytes', 'Memory of ArrayBuffers and Buffers, in bytes (part of external).');
  const spaceSize = registry.gauge('nodejs_heap_space_size_total_bytes', 'V8 heap space committed, in bytes.', ['space']);
  const spaceUsed = registry.gauge('nodejs_heap_space_size_used_bytes', 'V8 heap space in use, in bytes.', ['space']);
  start.set({}, Math.round((Date.now() - performance.now()) / 1000));
  registry.onScrape(() => {
    const f = read();
    rss.set({}, f.rss);
    // A counter only grows: add what was spent since it was last brought up to date.
    if (f.cpuSeconds > cpu.get()) cpu.inc({}, f.cpuSeconds - cpu.get());
    heapTotal.set({}, f.heapTotal);
    heapUsed.set({}, f.heapUsed);
    external.set({}, f.external);
    arrayBuffers.set({}, f.arrayBuffers);
    for (const s of f.spaces) {
      spaceSize.set({ space: s.name }, s.size);
      spaceUsed.set({ space: s.name }, s.used);
    }
  });
}
