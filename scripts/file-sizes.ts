// The file-size gate of the product code (part of `npm run style`): the median product file stays at
// or under 150 lines and no file goes over 400, so a module stays readable in one sitting and a file
// that grows past that is split while its author still knows where the seams are.
// Product = shared/src, baremetal/src, codegen/src, release/src, every controllers/*/src and scripts/:
// `.ts` and `.sh` files, not `*.test.ts`, not testdata/, not generated/ (codegen output).
// Usage (Node 24 or `deno run -A`): node scripts/file-sizes.ts [--top N]
//   prints the file count, the median and the N largest files (default 10); exits 1 over a limit.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MAX_LINES = 400;
export const MAX_MEDIAN = 150;

const FIXED_ROOTS = ['shared/src', 'baremetal/src', 'codegen/src', 'release/src', 'scripts'];
const SOURCE = /\.(ts|sh)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'testdata', 'generated']);

export interface FileSize {
  readonly path: string;
  readonly lines: number;
}

export interface SizeReport {
  readonly files: number;
  readonly median: number;
  /** Largest first, ties by path. */
  readonly largest: readonly FileSize[];
  /** Every file over MAX_LINES, largest first. */
  readonly over: readonly FileSize[];
  /** What breaks the gate, one line each; empty when it holds. */
  readonly problems: readonly string[];
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The median of `values` (the mean of the middle two for an even count; 0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The gate's verdict on `sizes`; pure. */
export function summarize(sizes: readonly FileSize[], top = 10): SizeReport {
  const bySize = [...sizes].sort((a, b) => b.lines - a.lines || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const mid = median(sizes.map((s) => s.lines));
  const over = bySize.filter((s) => s.lines > MAX_LINES);
  const problems = over.map((s) => `${s.path}: ${s.lines} lines (limit ${MAX_LINES}): split it`);
  if (mid > MAX_MEDIAN) problems.push(`median product file ${mid} lines (limit ${MAX_MEDIAN})`);
  return { files: sizes.length, median: mid, largest: bySize.slice(0, top), over, problems };
}

function isProductFile(name: string): boolean {
  return SOURCE.test(name) && !name.endsWith('.test.ts');
}

function walk(root: string, dir: string, out: FileSize[]): void {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(root, path, out);
    else if (entry.isFile() && isProductFile(entry.name)) out.push({ path, lines: lineCount(readFileSync(join(root, path), 'utf8')) });
  }
}

/** Every product file under `root` (the repository) with its line count. */
export function productFileSizes(root: string): FileSize[] {
  const controllers = readdirSync(join(root, 'controllers'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `controllers/${e.name}/src`);
  const out: FileSize[] = [];
  for (const dir of [...FIXED_ROOTS, ...controllers.sort()]) walk(root, dir, out);
  return out;
}

/** What the command prints: the figures, the largest files, then the problems. */
export function render(report: SizeReport): string {
  const lines = [
    `${report.files} product files, median ${report.median} lines (limit ${MAX_MEDIAN}), largest ${report.largest[0]?.lines ?? 0} (limit ${MAX_LINES})`,
    ...report.largest.map((s) => `  ${String(s.lines).padStart(5)}  ${s.path}`),
  ];
  return [...lines, ...report.problems].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--top');
  const top = at >= 0 ? Number(process.argv[at + 1]) : 10;
  if (!Number.isInteger(top) || top < 0) {
    console.error(`file-sizes: --top takes a whole number, got ${process.argv[at + 1] ?? 'nothing'}`);
    process.exit(2);
  }
  const report = summarize(productFileSizes(fileURLToPath(new URL('..', import.meta.url))), top);
  console.log(render(report));
  process.exit(report.problems.length > 0 ? 1 : 0);
}
