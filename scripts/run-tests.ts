// Runs uvu test files (`*.test.ts`) under Node 24 or Deno 2 in one process and ends with the plain
// closing line `N passed, N failed` that CI reads. Usage: run-tests.ts <dir|file>... [--filter re]
// Every failure is told again just before that line, between two marker lines, so .ci/run can repeat
// them at the end of a long log, where a reader that keeps only its tail still sees why a run failed.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import process from 'node:process';

type Outcome = [errors: string | true, passed: number, skipped: number, total: number];
type Runner = () => Promise<Outcome>;
type Group = [string | null, ...Runner[]];

const args = process.argv.slice(2);
const filterAt = args.indexOf('--filter');
const filter = filterAt >= 0 ? new RegExp(args.splice(filterAt, 2)[1] ?? '') : undefined;
const roots = args.length > 0 ? args : ['src'];

function collect(path: string, out: string[]): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      collect(join(path, entry), out);
    }
  } else if (/\.test\.ts$/.test(path) && (!filter || filter.test(path))) {
    out.push(resolve(path));
  }
}

const files: string[] = [];
for (const root of roots) collect(root, files);

const g = globalThis as { UVU_DEFER?: number; UVU_INDEX?: number; UVU_QUEUE?: Group[] };
g.UVU_DEFER = 1;
const uvu = await import('uvu');
const queue = g.UVU_QUEUE ?? [];
g.UVU_QUEUE = queue;

for (const [index, file] of files.entries()) {
  g.UVU_INDEX = index;
  queue.push([relative(process.cwd(), file)]);
  await import(pathToFileURL(file).href);
}

/** The marker lines around the failures told again (.ci/run looks for them). */
const FAILURES_BEGIN = '--- run-tests: failures ---';
const FAILURES_END = '--- run-tests: end of failures ---';

let passed = 0;
let failed = 0;
let skipped = 0;
const failures: string[] = [];
for (const group of queue) {
  const file = group[0]; // uvu shifts the name off the group before it runs the suites
  for (let i = 1; i < group.length; i++) {
    const run = group[i] as Runner;
    group[i] = async () => {
      const outcome = await run();
      passed += outcome[1];
      skipped += outcome[2];
      failed += outcome[3] - outcome[1];
      // uvu swallows an error thrown by a suite's before hook: no test ran and none says why.
      const notRun = outcome[3] - outcome[1] - outcome[2];
      if (outcome[0] !== true) failures.push(`${file ?? 'a suite'}:\n${outcome[0]}`);
      else if (notRun > 0) {
        const line = `  ✘ ${notRun} test(s) of ${file ?? 'this suite'} did not run: a before hook failed (its error, if the hook logs it, is above)`;
        console.log(line);
        failures.push(line);
      }
      return outcome;
    };
  }
}

await uvu.exec(false);
if (failures.length > 0) console.log([FAILURES_BEGIN, ...failures, FAILURES_END].join('\n'));
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (failed > 0 || files.length === 0) process.exitCode = 1;
// Test files may leave handles (servers, watches) that their own teardown closes late; the verdict is in.
process.exit(process.exitCode ?? 0);
