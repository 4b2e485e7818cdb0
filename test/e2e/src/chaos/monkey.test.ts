// The chaos loop's pure parts: the seeded PRNG replays, and outages are spread evenly over the kills.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outageSchedule, prng } from './monkey.ts';

test('prng: the same seed gives the same sequence, in [0, 1)', () => {
  const a = prng(42);
  const b = prng(42);
  const xs = Array.from({ length: 100 }, () => a());
  assert.equal(Array.from({ length: 100 }, () => b()), xs);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.not.equal(Array.from({ length: 5 }, prng(43)), xs.slice(0, 5));
});

const cases: [string, number, number, number, { afterKill: number; what: string }[]][] = [
  ['none', 20, 0, 0, []],
  ['CI size: one of each', 20, 1, 1, [{ afterKill: 7, what: 'apiserver' }, { afterKill: 13, what: 'etcd' }]],
  ['full size: two apiserver, one etcd, alternating', 100, 2, 1, [{ afterKill: 25, what: 'apiserver' }, { afterKill: 50, what: 'etcd' }, {
    afterKill: 75,
    what: 'apiserver',
  }]],
  ['no kills: every outage first', 0, 1, 1, [{ afterKill: 0, what: 'apiserver' }, { afterKill: 0, what: 'etcd' }]],
];
for (const [name, kills, apiserverRestarts, etcdRestarts, want] of cases) {
  test(`outageSchedule: ${name}`, () => {
    assert.equal(outageSchedule({ kills, apiserverRestarts, etcdRestarts }), want);
  });
}

test.run();
