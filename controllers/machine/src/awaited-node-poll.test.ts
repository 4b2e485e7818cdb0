import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AwaitedNodePoll } from './awaited-node-poll.ts';

test('E-36/E-37 changed: Node waits start at the first delay and double up to the cap', () => {
  const waits = new AwaitedNodePoll(1_000, 30_000);
  assert.equal([1, 2, 3, 4, 5, 6, 7].map(() => waits.next('ns/m')), [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  assert.is(waits.next('ns/other'), 1_000, 'each machine waits on its own');
  waits.forget('ns/m');
  assert.is(waits.next('ns/m'), 1_000, 'found (or gone): the next wait starts short again');
});

test.run();
