import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock/clock.ts';
import { reserve, TokenBucketRateLimiter } from './rate-limiter.ts';

const test = suite('rate limiter');

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

test('reserve: the burst goes at once, then one slot every 1/qps seconds', () => {
  let state = { tokens: 3, at: 0 };
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = reserve(state, 0, 10, 3);
    state = r.state;
    waits.push(Math.round(r.waitMs));
  }
  assert.equal(waits, [0, 0, 0, 100, 200, 300]);
  // Idle time refills, but never above the burst.
  assert.is(reserve({ tokens: 0, at: 0 }, 10_000, 10, 3).state.tokens, 2);
});

test('waiters leave in arrival order, one per 1/qps once the burst is spent', async () => {
  const clock = new ManualClock();
  const limiter = new TokenBucketRateLimiter(5, 2, clock);
  const done: [number, number][] = [];
  for (let i = 0; i < 6; i++) void limiter.wait().then(() => done.push([i, clock.now()]));
  await flush();
  assert.equal(done, [
    [0, 0],
    [1, 0],
  ]);
  await clock.advance(1000);
  await flush();
  assert.equal(done, [
    [0, 0],
    [1, 0],
    [2, 200],
    [3, 400],
    [4, 600],
    [5, 800],
  ]);
});

test('an aborted waiter rejects with the reason and returns its slot', async () => {
  const clock = new ManualClock();
  const limiter = new TokenBucketRateLimiter(1, 1, clock);
  await limiter.wait();
  const controller = new AbortController();
  const waiting = limiter.wait(controller.signal);
  controller.abort(new Error('cancelled'));
  await waiting.then(
    () => assert.unreachable('resolved'),
    (error: Error) => assert.is(error.message, 'cancelled'),
  );
  // The slot at 1 s is free again: the next caller gets it, not the one after.
  let at = -1;
  void limiter.wait().then(() => (at = clock.now()));
  await clock.advance(1000);
  await flush();
  assert.is(at, 1000);
});

test('tryAccept never waits; tokens() counts the free ones, below zero the promised slots', async () => {
  const clock = new ManualClock();
  const limiter = new TokenBucketRateLimiter(2, 2, clock);
  assert.equal([limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept()], [true, true, false]);
  await clock.advance(500);
  assert.ok(limiter.tryAccept());
  assert.is(limiter.tokens(), 0);
  void limiter.wait();
  void limiter.wait();
  assert.is(limiter.tokens(), -2);
  await clock.advance(1000);
  assert.is(limiter.tokens(), 0);
  assert.is(new TokenBucketRateLimiter(3, 0, clock).burst, 1);
});

test.run();
