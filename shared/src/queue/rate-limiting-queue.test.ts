import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock/clock.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';

const test = suite('rate-limiting queue');

function setup() {
  const clock = new ManualClock();
  const q = new RateLimitingQueue({ clock });
  /** Takes every key that is ready now (marking each done), in order. */
  const drain = async (): Promise<string[]> => {
    const out: string[] = [];
    while (q.length > 0) {
      const k = (await q.get())!;
      out.push(k);
      q.done(k);
    }
    return out;
  };
  return { clock, q, drain };
}

test('addAfter: the key is not ready before its delay and is ready at it', async () => {
  const { clock, q, drain } = setup();
  q.addAfter('k', 100);
  await clock.advance(99);
  assert.equal(await drain(), []);
  await clock.advance(1);
  assert.equal(await drain(), ['k']);
});

test('the earlier of two deadlines for one key wins, and the key runs once', async () => {
  const { clock, q, drain } = setup();
  q.addAfter('k', 500);
  q.addAfter('k', 100);
  q.addAfter('k', 300);
  await clock.advance(100);
  assert.equal(await drain(), ['k']);
  await clock.advance(1000);
  assert.equal(await drain(), [], 'the later deadlines were superseded, not kept');
});

test('delayed keys become ready in deadline order', async () => {
  const { clock, q, drain } = setup();
  q.addAfter('c', 30);
  q.addAfter('a', 10);
  q.addAfter('b', 20);
  await clock.advance(30);
  assert.equal(await drain(), ['a', 'b', 'c']);
});

test('a plain add overtakes a requeueAfter wait (waiting is not failing) and cancels it', async () => {
  const { clock, q, drain } = setup();
  q.addAfter('k', 30_000);
  q.add('k');
  assert.equal(await drain(), ['k']);
  await clock.advance(30_000);
  assert.equal(await drain(), []);
});

test('addAfter of a key that is already pending now is a no-op', async () => {
  const { clock, q, drain } = setup();
  q.add('k');
  q.addAfter('k', 50);
  assert.equal(await drain(), ['k']);
  await clock.advance(50);
  assert.equal(await drain(), []);
});

test('backoff grows 5, 10, 20, 40 ms per failure and forget resets it', async () => {
  const { clock, q, drain } = setup();
  const observed: number[] = [];
  for (let i = 0; i < 4; i++) {
    const before = clock.now();
    q.addRateLimited('k');
    for (let t = 1;; t++) {
      await clock.advance(1);
      if ((await drain()).length > 0) break;
      assert.ok(t < 100);
    }
    observed.push(clock.now() - before);
  }
  assert.equal(observed, [5, 10, 20, 40]);
  assert.is(q.numRequeues('k'), 4);
  q.forget('k');
  assert.is(q.numRequeues('k'), 0);
  q.addRateLimited('k');
  await clock.advance(5);
  assert.equal(await drain(), ['k']);
});

test('a spurious add does not overtake or reset a key that is backing off (8.4 item 2)', async () => {
  const { clock, q, drain } = setup();
  q.addRateLimited('k');
  q.addRateLimited('k');
  q.addRateLimited('k'); // third failure: 20 ms
  assert.ok(q.isBackingOff('k'));
  q.add('k');
  q.addAfter('k', 1);
  assert.equal(await drain(), [], 'the event is folded into the pending retry');
  await clock.advance(19);
  q.add('k');
  assert.equal(await drain(), []);
  await clock.advance(1);
  assert.equal(await drain(), ['k'], 'runs once, at the backoff deadline');
  assert.is(q.numRequeues('k'), 3, 'events never reset the failure count');
  q.addRateLimited('k');
  assert.is(q.numRequeues('k'), 4);
  await clock.advance(39);
  assert.equal(await drain(), []);
  await clock.advance(1);
  assert.equal(await drain(), ['k'], 'the next failure waits 40 ms: the backoff kept growing');
});

test('a run that was pending when the failure was recorded is folded into the retry', async () => {
  const { clock, q } = setup();
  q.add('k');
  const k = (await q.get())!;
  q.add('k'); // an event during the failing reconcile
  q.addRateLimited(k); // the reconcile failed
  q.done(k);
  assert.is(q.length, 0, 'not re-run at once');
  await clock.advance(5);
  assert.is(q.length, 1);
});

test('after the backoff deadline the key is ordinary again: an add is honoured', async () => {
  const { clock, q, drain } = setup();
  q.addRateLimited('k');
  await clock.advance(5);
  assert.not.ok(q.isBackingOff('k'));
  assert.equal(await drain(), ['k']);
  q.add('k');
  assert.equal(await drain(), ['k']);
});

test('shutdown drops delayed keys and leaves no timer behind', async () => {
  const { clock, q } = setup();
  q.addAfter('a', 1000);
  q.addRateLimited('b');
  assert.is(q.delayed, 2);
  assert.is(clock.pending, 1, 'one timer for the whole queue');
  q.shutDown();
  assert.is(q.delayed, 0);
  assert.is(clock.pending, 0);
  q.addAfter('c', 10);
  q.addRateLimited('c');
  q.add('c');
  await clock.advance(2000);
  assert.is(q.length, 0);
  assert.is(await q.get(), undefined);
});

test('1000 keys with random delays all become ready, each once, none early', async () => {
  const { clock, q } = setup();
  const due = new Map<string, number>();
  for (let i = 0; i < 1000; i++) {
    const ms = 1 + Math.floor(Math.random() * 500);
    const key = `k${i % 400}`;
    const at = clock.now() + ms;
    if (!due.has(key) || at < due.get(key)!) due.set(key, at);
    q.addAfter(key, ms);
  }
  const seen = new Map<string, number>();
  for (let t = 0; t < 600; t += 7) {
    await clock.advance(7);
    while (q.length > 0) {
      const k = (await q.get())!;
      assert.not.ok(seen.has(k), `${k} handed out twice`);
      seen.set(k, clock.now());
      q.done(k);
    }
  }
  assert.is(seen.size, due.size);
  for (const [k, at] of seen) {
    assert.ok(at >= due.get(k)!, `${k} early`);
    assert.ok(at < due.get(k)! + 7, `${k} late`);
  }
});

test.run();
