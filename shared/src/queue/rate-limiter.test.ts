import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock/clock.ts';
import { BucketRateLimiter, defaultControllerRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from './rate-limiter.ts';

const test = suite('rate limiters');

test('per-item backoff doubles from 5 ms and is capped at 1000 s', () => {
  const limiter = new ItemExponentialFailureRateLimiter();
  const delays = Array.from({ length: 30 }, () => limiter.when('ns/a'));
  assert.equal(delays.slice(0, 6), [5, 10, 20, 40, 80, 160]);
  // 5 ms * 2^17 = 655.36 s is the last step under the cap; from the 19th failure on it is 1000 s.
  assert.is(delays[17], 655_360);
  assert.is(delays[18], 1_000_000);
  assert.is(delays[29], 1_000_000);
  assert.is(limiter.numRequeues('ns/a'), 30);
});

test('the cap holds however many failures pile up (no overflow to Infinity or NaN)', () => {
  const limiter = new ItemExponentialFailureRateLimiter(5, 1_000_000);
  let last = 0;
  for (let i = 0; i < 5000; i++) last = limiter.when('k');
  assert.is(last, 1_000_000);
});

test('forget resets one key and leaves the others backing off', () => {
  const limiter = new ItemExponentialFailureRateLimiter();
  limiter.when('a');
  limiter.when('a');
  limiter.when('b');
  limiter.forget('a');
  assert.is(limiter.numRequeues('a'), 0);
  assert.is(limiter.when('a'), 5);
  assert.is(limiter.when('b'), 10);
});

test('invalid backoff bounds are refused', () => {
  assert.throws(() => new ItemExponentialFailureRateLimiter(0, 10), /base/);
  assert.throws(() => new ItemExponentialFailureRateLimiter(10, 5), /base/);
});

test('the token bucket lets a burst through, then spaces retries at 1/qps', async () => {
  const clock = new ManualClock();
  const bucket = new BucketRateLimiter({ qps: 10, burst: 3, clock });
  assert.equal([bucket.when('a'), bucket.when('b'), bucket.when('c')], [0, 0, 0]);
  assert.is(bucket.when('d'), 100);
  assert.is(bucket.when('e'), 200);
  await clock.advance(1000);
  // 1 s at 10 qps refills 10 tokens, minus the debt of 2, capped at the burst of 3.
  assert.equal([bucket.when('f'), bucket.when('g'), bucket.when('h')], [0, 0, 0]);
  assert.is(bucket.when('i'), 100);
});

test('client-go defaults: the bucket only bites when many keys fail together', () => {
  const clock = new ManualClock();
  const limiter = defaultControllerRateLimiter({ clock });
  assert.is(limiter.when('x'), 5);
  assert.is(limiter.when('x'), 10);
  for (let i = 0; i < 98; i++) limiter.when(`k${i}`);
  // 101st failure overall with no time passed: the bucket (10 qps) says 100 ms, above the item's 5 ms.
  assert.is(limiter.when('fresh'), 100);
  assert.is(limiter.numRequeues('x'), 2);
  limiter.forget('x');
  assert.is(limiter.numRequeues('x'), 0);
});

test('max-of answers the longest delay of its limiters', () => {
  const a = new ItemExponentialFailureRateLimiter(5, 1000);
  const b = new ItemExponentialFailureRateLimiter(50, 60);
  const both = new MaxOfRateLimiter(a, b);
  assert.equal([both.when('k'), both.when('k'), both.when('k')], [50, 60, 60]);
  assert.throws(() => new MaxOfRateLimiter(), /at least one/);
});

test.run();
