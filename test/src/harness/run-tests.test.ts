// scripts/run-tests.ts tells every failure again between its marker lines, before the closing
// `N passed, N failed`, and .ci/run repeats what lies between them at the end of CI's log: run on a
// file with one passing and one failing test, the block names the file, the test and the assertion.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runtimes } from './controller-process.ts';

test('a failing test is told again between the markers, before the totals; .ci/run extracts exactly that block', () => {
  // Inside the repository, so the file resolves uvu from its node_modules.
  const dir = mkdtempSync(join(repoRoot, 'test', '.run-tests-'));
  try {
    writeFileSync(
      join(dir, 'sample.test.ts'),
      "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest('passes', () => {});\ntest('fails', () => assert.is(1, 2, 'one is not two'));\ntest.run();\n",
    );
    const run = spawnSync(runtimes.node, [join(repoRoot, 'scripts', 'run-tests.ts'), join(dir, 'sample.test.ts')], { cwd: dir, encoding: 'utf8' });
    assert.is(run.status, 1, 'a failure fails the run');
    const lines = run.stdout.trimEnd().split('\n');
    assert.is(lines.at(-1), '1 passed, 1 failed');
    const begin = lines.indexOf('--- run-tests: failures ---');
    const end = lines.indexOf('--- run-tests: end of failures ---');
    assert.ok(begin >= 0 && end === lines.length - 2, `the block ends just before the totals:\n${run.stdout}`);
    const block = lines.slice(begin + 1, end).join('\n');
    assert.match(block, /^sample\.test\.ts:/);
    assert.match(block, /FAIL .*"fails"/);
    assert.match(block, /one is not two/);
    assert.not.match(block, /"passes"/);
    // The extraction .ci/run makes (its own awk program, read from it), on the same output.
    const program = /awk '([^']*run-tests: failures[^']*)'/.exec(readFileSync(join(repoRoot, '.ci', 'run'), 'utf8'))?.[1];
    assert.ok(program, '.ci/run extracts the failures with awk');
    const ci = spawnSync('awk', [program!], {
      input: run.stdout,
      encoding: 'utf8',
    });
    assert.is(ci.stdout.trimEnd(), block.trimEnd());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
