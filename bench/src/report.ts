// Prints benchmark results as aligned tables: one row per measurement, ours beside the reference,
// with the ratio, so a reader sees at a glance where we stand.
export interface Row {
  readonly what: string;
  readonly ours: number;
  readonly unit: string;
  /** The figure we compare against (another implementation, or a target), if any. */
  readonly reference?: { readonly label: string; readonly value: number };
  /** Whether a larger figure is better (throughput) or worse (memory, latency). */
  readonly better: 'higher' | 'lower';
}

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

export function printSection(title: string, rows: readonly Row[]): void {
  const lines = rows.map((r) => {
    const ref = r.reference;
    const ratio = ref && ref.value !== 0 ? r.ours / ref.value : undefined;
    return [r.what, `${fmt(r.ours)} ${r.unit}`, ref ? `${fmt(ref.value)} ${r.unit} (${ref.label})` : '', ratio === undefined ? '' : `${ratio.toFixed(2)}x`];
  });
  const header = ['measurement', 'metal3-ts', 'reference', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd();
  console.log(`\n## ${title}`);
  console.log(row(header));
  console.log(row(widths.map((w) => '-'.repeat(w))));
  for (const l of lines) console.log(row(l));
}

/** Percentile of a sample (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
