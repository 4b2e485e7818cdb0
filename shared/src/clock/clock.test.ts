import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jitter, ManualClock, realClock } from './clock.ts';

const test = suite('clock');

test('a manual clock fires sleeps in deadline order and only when advanced', async () => {
  const clock = new ManualClock();
  const fired: number[] = [];
  void clock.sleep(30).then(() => fired.push(30));
  void clock.sleep(10).then(() => fired.push(10));
  await clock.advance(5);
  assert.equal(fired, []);
  await clock.advance(30);
  assert.equal(fired, [10, 30]);
  assert.is(clock.now(), 35);
});

test('an aborted sleep rejects with the reason and leaves no pending sleeper', async () => {
  const clock = new ManualClock();
  const ac = new AbortController();
  const slept = clock.sleep(100, ac.signal);
  ac.abort(new Error('stop'));
  await slept.then(
    () => assert.unreachable('should reject'),
    (e: Error) => assert.is(e.message, 'stop'),
  );
  assert.is(clock.pending, 0);
});

test('the real clock sleeps and honours abort', async () => {
  const t0 = realClock.now();
  await realClock.sleep(20);
  assert.ok(realClock.now() - t0 >= 15);
  const ac = new AbortController();
  const p = realClock.sleep(10_000, ac.signal);
  ac.abort(new Error('bye'));
  await p.then(
    () => assert.unreachable('should reject'),
    (e: Error) => assert.is(e.message, 'bye'),
  );
});

test('jitter stays within [ms * (1 - fraction), ms]', () => {
  assert.is(jitter(100, 0.2, () => 0), 100);
  assert.is(jitter(100, 0.2, () => 1), 80);
});

test.run();
