// The behaviour catalogue (docs/behaviours.md): the ID pattern and its exclusions, the doc's
// parse/render round trip, and the gate itself: every ID named in the tree has a meaning line and
// the generated columns are current. The failure message names the IDs and the command to run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { check, explain, kindOf } from '../../../scripts/behaviours.ts';
import { parse, render, rows, SUMMARY_END, SUMMARY_START, type Where } from '../../../scripts/behaviours/catalogue.ts';
import { compareIds, idsIn } from '../../../scripts/behaviours/ids.ts';

const test = suite('behaviour catalogue');
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const sorted = (ids: Iterable<string>) => [...ids].sort(compareIds);

test('IDs: prefixes of one to four characters, sections, each once and normalised', () => {
  const cases: [string, string[]][] = [
    ['research M-12, DT-6 and B2-7', ['B2-7', 'DT-6', 'M-12']],
    ["test('C-11/C-12 (changed): …')", ['C-11', 'C-12']],
    ['D-9(8), E-4)', ['D-9', 'E-4']],
    ['§0.6, § 5.3 and §8: sections', ['§0.6', '§5.3', '§8']],
    ['M-22 twice: M-22', ['M-22']],
    ['M-012 is M-12', ['M-12']],
  ];
  for (const [text, want] of cases) assert.equal(sorted(idsIn(text).explicit), want, text);
});

test('IDs: look-alikes are not IDs (deny lists, and no match inside words or hyphenated runs)', () => {
  const cases = ['UTF-8 and UTF-16', 'SHA-256', 'ECDSA P-256', 'FNV-1a', 'RFC-1123 names', '[A-Z0-9]', 'abc-M-1', 'CAPM3-1', 'M-12-x', 'U-1', 'x.M-1y'];
  for (const text of cases) assert.equal(sorted(idsIn(text).explicit), [], text);
});

test('IDs: a range names its ends explicitly and its inside by range', () => {
  const cases: [string, string[], string[]][] = [
    ['M-1…M-4', ['M-1', 'M-4'], ['M-2', 'M-3']],
    ['DT-11...DT-13', ['DT-11', 'DT-13'], ['DT-12']],
    ['V-1 – V-3', ['V-1', 'V-3'], ['V-2']],
    ['D-9..D-10', ['D-10', 'D-9'], []],
    ['M-1…DT-4 is no range', ['DT-4', 'M-1'], []],
  ];
  for (const [text, explicit, inside] of cases) {
    const found = idsIn(text);
    assert.equal(sorted(found.explicit), sorted(explicit), text);
    assert.equal(sorted(found.inRanges), sorted(inside), text);
  }
});

test('IDs: report order is by prefix, then number; sections by their dotted numbers', () => {
  assert.equal(['M-10', 'C-2', 'M-9', '§8', '§0.6', '§1.1', '§5'].sort(compareIds), ['C-2', 'M-9', 'M-10', '§0.6', '§1.1', '§5', '§8']);
});

test('files: product code and manifests of any package implement, *.test.ts tests, the rest mentions', () => {
  const cases: [string, string][] = [
    ['controllers/machine/src/reconcile.ts', 'implemented'],
    ['controllers/data/deploy/rbac.yaml', 'implemented'],
    ['baremetal/src/claim.ts', 'implemented'],
    ['crds/policies/x.yaml', 'implemented'],
    ['baremetal/src/claim.test.ts', 'tested'],
    ['controllers/machine/test/lifecycle.test.ts', 'tested'],
    ['controllers/machine/test/support.ts', 'mentioned'],
    ['test/src/sim/bmo/hardware.ts', 'mentioned'],
    ['bench/src/machine.ts', 'mentioned'],
    ['docs/compatibility.md', 'mentioned'],
    ['README.md', 'mentioned'],
    ['scripts/run-tests.ts', 'mentioned'],
    ['metal3/src/host/claim.ts', 'implemented'],
    ['metal3/test/support.ts', 'mentioned'],
  ];
  for (const [path, kind] of cases) assert.is(kindOf(path), kind, path);
});

const DOC = [
  '# t',
  '',
  '## M-',
  '',
  '| ID | meaning | implemented in | tested in | mentioned in |',
  '| --- | --- | --- | --- | --- |',
  '| M-1 | first, with a \\| bar |',
  '| M-2 | second |',
  '',
].join('\n');

test('doc: meanings survive a render, file cells and the summary are regenerated, and a render is stable', () => {
  const where = new Map<string, Where>([['M-1', { implemented: ['controllers/machine/src/a.ts'], tested: [], mentioned: ['docs/x.md'] }]]);
  const once = render(parse(DOC), where);
  assert.ok(
    once.includes('| <a id="M-1"></a>M-1 | first, with a \\| bar | [machine/src/a.ts](../controllers/machine/src/a.ts) | — | [docs/x.md](../docs/x.md) |'),
    once,
  );
  assert.ok(once.includes('| <a id="M-2"></a>M-2 | second | — | — | — |'));
  assert.ok(once.includes(SUMMARY_START) && once.includes(SUMMARY_END));
  assert.ok(once.includes('Implemented but named by no test title or test file (1): [M-1](#M-1).'));
  assert.equal(rows(parse(once)), [{ id: 'M-1', meaning: 'first, with a \\| bar' }, { id: 'M-2', meaning: 'second' }]);
  assert.is(render(parse(once), where), once);
  assert.is.not(render(parse(once), new Map()), once, 'a change in the tree makes the doc stale');
});

test('the catalogue in the repository describes every ID the tree names and is up to date', () => {
  const report = check(ROOT);
  if (report.problems.length > 0 || report.stale) assert.unreachable(`\n${explain(report)}`);
});

test('the failure message names the IDs and the command', () => {
  const text = explain({ expected: '', problems: ['Q-1 has no meaning line (named in a.ts)'], stale: true });
  assert.match(text, 'Q-1 has no meaning line');
  assert.match(text, 'node_modules/.bin/node scripts/behaviours.ts');
  assert.match(text, 'out of date');
});

test.run();
