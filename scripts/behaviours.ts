// Regenerates docs/behaviours.md, the behaviour catalogue, and checks it (its test runs `check`).
// The doc's hand-written part (ID → one-line meaning, intros) stays as written; the generated part
// (which product, test and other files name each ID) is rebuilt from the tree, so it cannot drift.
// Usage (Node 24 or `deno run -A`): node scripts/behaviours.ts [--check]
//   no flag: rewrite the doc, then report IDs that have no meaning line (exit 1 if any);
//   --check: change nothing; report missing meanings and a stale doc (exit 1 if any).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, render, rows, type Where } from './behaviours/catalogue.ts';
import { compareIds, idsIn } from './behaviours/ids.ts';

export const DOC = 'docs/behaviours.md';
export const COMMAND = 'node_modules/.bin/node scripts/behaviours.ts';

/**
 * What is scanned: every file a person writes (`.ts`, `.md`, `.yaml`) anywhere in the repository,
 * so a new package is covered without editing this list; not generated/ (codegen output), build
 * output, dependencies, nor the catalogue and its own tooling (they name IDs as examples).
 */
const SCANNED = /\.(ts|md|ya?ml)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage']);
const SKIP_PATHS = ['generated', DOC, 'scripts/behaviours', 'scripts/behaviours.ts', 'test/src/docs'];

type Kind = keyof Where;

/**
 * `*.test.ts` files test; docs, bench, scripts, the test package (simulators, lab) and the test
 * supports beside a package's tests mention; everything else (product code, RBAC, CRDs) implements.
 */
export function kindOf(path: string): Kind {
  if (path.endsWith('.test.ts')) return 'tested';
  if (path.endsWith('.md') || /^(test|bench|docs|scripts)\//.test(path) || /^([^/]+\/)?[^/]+\/test\//.test(path)) return 'mentioned';
  return 'implemented';
}

function walk(root: string, dir: string, out: string[]): void {
  const entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const path = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.name.startsWith('.') || SKIP_DIRS.has(e.name) || SKIP_PATHS.some((skip) => path === skip || path.startsWith(`${skip}/`))) continue;
    if (e.isDirectory()) walk(root, path, out);
    else if (e.isFile() && SCANNED.test(e.name)) out.push(path);
  }
}

export interface Scan {
  /** ID → the files naming it, by kind (range insides included). */
  readonly where: Map<string, Where>;
  /** ID → files naming it explicitly: what must have a meaning line. */
  readonly explicit: Map<string, string[]>;
}

export function scan(root: string): Scan {
  const files: string[] = [];
  walk(root, '', files);
  const where = new Map<string, { implemented: string[]; tested: string[]; mentioned: string[] }>();
  const explicit = new Map<string, string[]>();
  for (const file of files) {
    const found = idsIn(readFileSync(join(root, file), 'utf8'));
    for (const id of new Set([...found.explicit, ...found.inRanges])) {
      const w = where.get(id) ?? { implemented: [], tested: [], mentioned: [] };
      w[kindOf(file)].push(file);
      where.set(id, w);
    }
    for (const id of found.explicit) explicit.set(id, [...(explicit.get(id) ?? []), file]);
  }
  return { where, explicit };
}

export interface Report {
  /** The doc as the tree says it should read. */
  readonly expected: string;
  /** Problems a person must fix (a missing meaning, a duplicate row); not staleness. */
  readonly problems: string[];
  readonly stale: boolean;
}

export function check(root: string): Report {
  const current = readFileSync(join(root, DOC), 'utf8');
  const lines = parse(current);
  const described = rows(lines);
  const { where, explicit } = scan(root);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const r of described) {
    if (seen.has(r.id)) problems.push(`${r.id} has two rows in ${DOC}`);
    if (r.meaning === '') problems.push(`${r.id} has an empty meaning in ${DOC}`);
    seen.add(r.id);
  }
  const missing = [...explicit.keys()].filter((id) => !seen.has(id)).sort(compareIds);
  for (const id of missing) {
    const files = explicit.get(id)!;
    problems.push(`${id} has no meaning line (named in ${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''})`);
  }
  // Insides of ranges count only for IDs the catalogue has (M-1…M-43 skips numbers upstream never used).
  const known = new Map([...where].filter(([id]) => seen.has(id)));
  const expected = render(lines, known);
  return { expected, problems, stale: expected !== current };
}

/** The failure text: which IDs, and the command that fixes what a command can fix. */
export function explain(report: Report): string {
  const out = [...report.problems];
  if (report.problems.some((p) => p.includes('no meaning line'))) {
    out.push(
      `Add a row "| ID | one line on what it means |" to the right section of ${DOC} (or, if the token is not a behaviour ID, add it to NOT_IDS in scripts/behaviours/ids.ts), then run: ${COMMAND}`,
    );
  }
  if (report.stale) out.push(`${DOC} is out of date (files naming IDs changed): run ${COMMAND}`);
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const report = check(root);
  if (process.argv.includes('--check')) {
    if (report.problems.length > 0 || report.stale) {
      console.error(explain(report));
      process.exitCode = 1;
    }
  } else {
    if (report.stale) writeFileSync(join(root, DOC), report.expected);
    console.log(`${relative(process.cwd(), join(root, DOC)) || DOC}: ${report.stale ? 'rewritten' : 'up to date'}`);
    if (report.problems.length > 0) {
      console.error(explain({ ...report, stale: false }));
      process.exitCode = 1;
    }
  }
}
