// The file-size gate (scripts/file-sizes.ts): line counting, the median, the verdict on a table of
// sizes, and the gate on this tree (median product file ≤ 150 lines, none over 400).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { type FileSize, lineCount, MAX_LINES, median, productFileSizes, render, summarize } from '../../../scripts/file-sizes.ts';

const test = suite('file sizes');
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('lines are counted as wc -l does, plus a last line without its newline', () => {
  const cases: [string, number][] = [['', 0], ['a', 1], ['a\n', 1], ['a\nb', 2], ['a\nb\n', 2], ['\n\n', 2]];
  for (const [text, want] of cases) assert.is(lineCount(text), want, JSON.stringify(text));
});

test('the median: the middle value, the mean of the middle two, 0 for nothing; input order does not matter', () => {
  const cases: [number[], number][] = [[[], 0], [[7], 7], [[300, 1, 20], 20], [[4, 1, 3, 2], 2.5]];
  for (const [values, want] of cases) assert.is(median(values), want, values.join(','));
});

test('the verdict: a file over 400 lines and a median over 150 are each a problem naming the figure', () => {
  const sizes = (lines: number[]): FileSize[] => lines.map((n, i) => ({ path: `f${i}.ts`, lines: n }));
  const cases: [string, number[], string[]][] = [
    ['all small', [10, 20, 30], []],
    ['exactly at the limits', [150, 150, MAX_LINES], []],
    ['one file over 400', [10, 20, 401], ['f2.ts: 401 lines (limit 400): split it']],
    ['median over 150', [151, 160, 10], ['median product file 151 lines (limit 150)']],
  ];
  for (const [what, lines, want] of cases) assert.equal(summarize(sizes(lines)).problems, want, what);
});

test('the report lists the largest first (ties by path) and cuts at --top', () => {
  const report = summarize([{ path: 'b.ts', lines: 5 }, { path: 'a.ts', lines: 5 }, { path: 'c.ts', lines: 9 }], 2);
  assert.equal(report.largest.map((s) => s.path), ['c.ts', 'a.ts']);
  assert.is(render(report).split('\n')[0], '3 product files, median 5 lines (limit 150), largest 9 (limit 400)');
});

test('this tree: median product file ≤ 150 lines, none over 400 (run node scripts/file-sizes.ts for the list)', () => {
  const sizes = productFileSizes(ROOT);
  assert.ok(sizes.some((s) => s.path === 'shared/src/patch/patch-helper.ts'), 'the product trees were read');
  assert.not.ok(sizes.some((s) => s.path.endsWith('.test.ts') || s.path.includes('/testdata/')), 'tests and test data are not product');
  const report = summarize(sizes);
  assert.equal(report.problems, [], render(report));
});

test.run();
