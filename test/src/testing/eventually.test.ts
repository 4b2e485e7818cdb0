import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, eventuallyWith, settled } from './eventually.ts';

const test = suite('eventually');

test('returns the first defined value, treating throws as "not yet"', async () => {
  let calls = 0;
  const value = await eventually('the third call', () => {
    calls++;
    if (calls === 1) throw new Error('not ready');
    return calls === 3 ? 'done' : undefined;
  }, { pollMs: 1 });
  assert.is(value, 'done');
  assert.is(calls, 3);
});

test('times out naming what it waited for, the last error and what was logged', async () => {
  try {
    await eventually('a miracle', () => {
      throw new Error('nope');
    }, { timeoutMs: 30, pollMs: 5, explain: () => ['warn: forbidden'] });
    assert.unreachable('should time out');
  } catch (error) {
    assert.match((error as Error).message, /waiting for a miracle \(last error: Error: nope\); logged:\nwarn: forbidden/);
  }
});

test('eventuallyWith: its defaults hold unless the caller gives a timeout', async () => {
  const quick = eventuallyWith({ timeoutMs: 20, pollMs: 1 });
  const timeoutOf = (wait: Promise<unknown>) => wait.then(() => 'resolved', (error: Error) => /timed out after (\d+) ms/.exec(error.message)?.[1]);
  assert.is(await timeoutOf(quick('never', () => undefined)), '20');
  assert.is(await timeoutOf(quick('never', () => undefined, 30)), '30');
  assert.is(await timeoutOf(quick('never', () => undefined, { timeoutMs: 40 })), '40');
  assert.is(await quick('a value', () => 7), 7);
});

test('settled waits for a new reconcile and then for quiet', async () => {
  let n = 0;
  const timer = setInterval(() => n < 5 && n++, 5);
  await settled({ reconciles: () => n }, 0, 60);
  clearInterval(timer);
  assert.is(n, 5);
});

test.run();
