// A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
// exposition format (version 0.0.4). Just what the harness needs; no client library, no dependency.
import { compareCodeUnits } from '../meta/compare.ts';

export type Labels = Readonly<Record<string, string>>;

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

function labelKey(names: readonly string[], labels: Labels): string {
  return names.map((n) => labels[n] ?? '').join('\u0000');
}

function renderLabels(names: readonly string[], values: readonly string[], extra = ''): string {
  const parts = names.map((n, i) => `${n}="${escape(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const num = (v: number) => (Number.isFinite(v) ? String(v) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN');

abstract class Vec<S> implements Metric {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected readonly series = new Map<string, { values: string[]; state: S }>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  protected abstract init(): S;
  abstract render(): string[];

  protected at(labels: Labels): S {
    const key = labelKey(this.labelNames, labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values: this.labelNames.map((n) => labels[n] ?? ''), state: this.init() };
      this.series.set(key, entry);
    }
    return entry.state;
  }
}

/** One number per series (counters and gauges): read and rendered the same way. */
abstract class ScalarVec extends Vec<{ v: number }> {
  protected init() {
    return { v: 0 };
  }
  get(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.state.v ?? 0;
  }
  render(): string[] {
    return [...this.series.values()].map((s) => `${this.name}${renderLabels(this.labelNames, s.values)} ${num(s.state.v)}`);
  }
}

export class Counter extends ScalarVec {
  readonly type = 'counter';
  inc(labels: Labels = {}, by = 1): void {
    this.at(labels).v += by;
  }
  /** Creates the series at 0, so dashboards see it before the first event. */
  touch(labels: Labels = {}): void {
    this.at(labels);
  }
}

export class Gauge extends ScalarVec {
  readonly type = 'gauge';
  set(labels: Labels, value: number): void {
    this.at(labels).v = value;
  }
  inc(labels: Labels = {}, by = 1): void {
    this.at(labels).v += by;
  }
  dec(labels: Labels = {}, by = 1): void {
    this.at(labels).v -= by;
  }
}

export class Histogram extends Vec<{ counts: number[]; sum: number; count: number }> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.buckets = [...buckets].sort((a, b) => a - b);
  }
  protected init() {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
  observe(labels: Labels, value: number): void {
    const s = this.at(labels);
    s.sum += value;
    s.count += 1;
    for (let i = 0; i < this.buckets.length; i++) if (value <= (this.buckets[i] as number)) s.counts[i]! += 1;
  }
  count(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.state.count ?? 0;
  }
  render(): string[] {
    const lines: string[] = [];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket${renderLabels(this.labelNames, s.values, `le="${num(b)}"`)} ${s.state.counts[i]}`));
      lines.push(`${this.name}_bucket${renderLabels(this.labelNames, s.values, 'le="+Inf"')} ${s.state.count}`);
      lines.push(`${this.name}_sum${renderLabels(this.labelNames, s.values)} ${num(s.state.sum)}`);
      lines.push(`${this.name}_count${renderLabels(this.labelNames, s.values)} ${s.state.count}`);
    }
    return lines;
  }
}

/** Exponential buckets, as Prometheus' client_golang `ExponentialBuckets(start, factor, count)`. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export class Registry {
  readonly #metrics = new Map<string, Metric>();
  readonly #collectors: (() => void)[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.#register(name, () => new Counter(name, help, labelNames), Counter);
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.#register(name, () => new Gauge(name, help, labelNames), Gauge);
  }
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    return this.#register(name, () => new Histogram(name, help, labelNames, buckets), Histogram);
  }

  /** Runs `collect` before every render: for values read when scraped (process memory, CPU). */
  onScrape(collect: () => void): void {
    this.#collectors.push(collect);
  }

  /** The text exposition of every metric, as served on `/metrics`. */
  render(): string {
    for (const collect of this.#collectors) collect();
    const out: string[] = [];
    for (const m of [...this.#metrics.values()].sort((a, b) => compareCodeUnits(a.name, b.name))) {
      out.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`, ...m.render());
    }
    return out.join('\n') + '\n';
  }

  // Registering the same name twice returns the existing metric: several controllers share one
  // family (e.g. controller_runtime_reconcile_total) and tell themselves apart by label.
  #register<M extends Metric>(name: string, make: () => M, kind: abstract new (...args: never[]) => M): M {
    const existing = this.#metrics.get(name);
    if (existing) {
      if (!(existing instanceof kind)) throw new Error(`metric ${name} is already registered as a ${existing.type}`);
      return existing;
    }
    const metric = make();
    this.#metrics.set(name, metric);
    return metric;
  }
}
