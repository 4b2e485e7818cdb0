import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkQueue } from './work-queue.ts';

const test = suite('work queue');

/** Resolves with the value of `p`, or 'pending' if it has not settled after a few turns of the event loop. */
async function settled<T>(p: Promise<T>): Promise<T | 'pending'> {
  return await Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 5))]);
}

test('100 adds of a waiting key coalesce into one pending key', async () => {
  const q = new WorkQueue();
  for (let i = 0; i < 100; i++) q.add('ns/a');
  assert.is(q.length, 1);
  assert.is(await q.get(), 'ns/a');
  assert.is(q.length, 0);
  assert.is(await settled(q.get()), 'pending');
});

test('distinct keys come out in the order they became pending', async () => {
  const q = new WorkQueue();
  for (const k of ['c', 'a', 'b', 'a', 'c']) q.add(k);
  assert.equal([await q.get(), await q.get(), await q.get()], ['c', 'a', 'b']);
});

test('a key added while processing is not handed to a second worker until done', async () => {
  const q = new WorkQueue();
  q.add('k');
  assert.is(await q.get(), 'k');
  q.add('k');
  q.add('k');
  assert.is(q.length, 0, 'not queued while processing');
  const second = q.get();
  assert.is(await settled(second), 'pending');
  q.done('k');
  assert.is(await second, 'k', 'queued again once done: the add was not lost');
  q.done('k');
  assert.is(await settled(q.get()), 'pending', 'the two adds during processing made one re-run');
});

test('a waiting get is woken by the next add', async () => {
  const q = new WorkQueue();
  const waiting = q.get();
  q.add('x');
  assert.is(await waiting, 'x');
  assert.ok(q.isProcessing('x'));
});

test('shut down: idle getters get undefined, queued keys still drain, new adds are refused', async () => {
  const q = new WorkQueue();
  const idle = q.get();
  q.shutDown();
  assert.is(await idle, undefined);

  const q2 = new WorkQueue();
  q2.add('a');
  q2.add('b');
  q2.shutDown();
  q2.add('c');
  assert.equal([await q2.get(), await q2.get(), await q2.get()], ['a', 'b', undefined]);
});

test('shutDownWithDrain resolves only after the in-flight keys are done', async () => {
  const q = new WorkQueue();
  q.add('a');
  const key = await q.get();
  const drained = q.shutDownWithDrain();
  assert.is(await settled(drained), 'pending');
  q.done(key!);
  assert.is(await settled(drained), undefined);
});

test('withdraw drops a pending key, queued or dirty while processing', async () => {
  const q = new WorkQueue();
  q.add('a');
  assert.ok(q.withdraw('a'));
  assert.is(q.length, 0);
  assert.not.ok(q.withdraw('a'));
  q.add('b');
  await q.get();
  q.add('b');
  assert.ok(q.withdraw('b'));
  q.done('b');
  assert.is(await settled(q.get()), 'pending');
});

test('done of a key that is not processing is ignored', () => {
  const q = new WorkQueue();
  q.done('nobody');
  assert.is(q.processing, 0);
});

test.run();
