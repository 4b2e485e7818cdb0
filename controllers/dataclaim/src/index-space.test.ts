import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOfClaim, lowestFreeIndex, takenIndexes } from './index-space.ts';
import { claim, data, template } from './testing.ts';

const test = suite("index-space: lowest free index, taken indexes, a claim's Metal3Data");

/** CAPM3's own formula (DT-12): the smallest i in 0..n-1 not taken, else n. */
function upstreamIndex(taken: readonly number[]): number {
  const keys = new Set(taken);
  const n = keys.size;
  for (let i = 0; i < n; i++) if (!keys.has(i)) return i;
  return n;
}

test('DT-12: the lowest free index, matching CAPM3\'s "smallest gap below the count, else the count"', () => {
  const cases: [number[], number][] = [
    [[], 0],
    [[0], 1],
    [[0, 5], 1],
    [[1, 2], 0],
    [[0, 1, 2], 3],
    [[7], 0],
    [[0, 1, 3, 4], 2],
  ];
  for (const [taken, expected] of cases) {
    assert.is(lowestFreeIndex(new Set(taken)), expected, JSON.stringify(taken));
    assert.is(upstreamIndex(taken), expected, `upstream ${JSON.stringify(taken)}`);
  }
});

test("DT-9/E-34: taken = the indexes of the template's Metal3Data, terminating ones included, not the claim's own", () => {
  const t = template('tmpl');
  const me = claim('me');
  const datas = [data(t, claim('a'), 0), data(t, claim('b'), 2, { deleting: true }), data(t, me, 5), data(template('other'), claim('c'), 1)];
  assert.equal([...takenIndexes({ template: t, datas, claimExists: () => true, claim: me })].sort(), [0, 2]);
});

test('DR-1/seed: Metal3Data of the lineage (templateReference) count as taken; the ledger counts only for live claims', () => {
  const old = template('old');
  const t = template('new', { templateReference: 'old', status: { indexes: { live: 7, gone: 8, me: 9 } } });
  const me = claim('me', { template: 'new' });
  const datas = [data(old, claim('x', { template: 'old' }), 3), data(template('unrelated'), claim('y'), 4)];
  const taken = takenIndexes({ template: t, datas, claimExists: (name) => name !== 'gone', claim: me });
  assert.equal([...taken].sort(), [3, 7]);
});

test("a claim's Metal3Data: the one its status names first, others are duplicates; another incarnation's is not its", () => {
  const t = template('tmpl');
  const me = claim('me', { renderedData: 'tmpl-4' });
  const a = data(t, me, 1);
  const b = data(t, me, 4);
  const previous = data(t, claim('me', { uid: 'old-uid' }), 0);
  const result = dataOfClaim(me, [a, b, previous]);
  assert.is(result.keep?.metadata.name, 'tmpl-4');
  assert.equal(result.duplicates.map((d) => d.metadata.name), ['tmpl-1']);
  const unnamed = dataOfClaim(claim('me'), [b, a]);
  assert.is(unnamed.keep?.metadata.name, 'tmpl-1', 'lowest index when the status names none');
  assert.equal(dataOfClaim(claim('me'), [previous]), { duplicates: [] });
});

test.run();
