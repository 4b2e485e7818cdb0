// Table of the stop rules of retryOnConflict (one loop for every optimistic write).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError } from '@metal3-ts/generated/runtime/errors';
import { type Clock } from '../clock/clock.ts';
import { backoffMs, isStaleOrGuardFailed, RetryExhaustedError, retryOnConflict } from './retry-on-conflict.ts';

const status = (code: number) => apiError(code, undefined, { verb: 'PATCH', path: '/x' });

/** A scripted write: each entry is the outcome of one attempt (a value, or an error to throw). */
function scripted(outcomes: readonly unknown[]) {
  const seen: number[] = [];
  let i = 0;
  const write = (current: number): Promise<string> => {
    seen.push(current);
    const outcome = outcomes[i++];
    return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(String(outcome));
  };
  return { write, seen };
}

test('retryOnConflict: success on the first attempt writes once and never re-reads', async () => {
  const { write, seen } = scripted(['ok']);
  let rereads = 0;
  assert.is(await retryOnConflict(1, write, { what: 'x', reread: () => (rereads++, Promise.resolve(2)) }), 'ok');
  assert.equal(seen, [1]);
  assert.is(rereads, 0);
});

test('retryOnConflict: a 409 re-reads and writes on the fresh copy', async () => {
  const { write, seen } = scripted([status(409), 'ok']);
  let version = 1;
  assert.is(await retryOnConflict(version, write, { what: 'x', reread: () => Promise.resolve(++version) }), 'ok');
  assert.equal(seen, [1, 2]);
});

test('retryOnConflict: 404 at the write or at the re-read means gone (undefined)', async () => {
  assert.is(await retryOnConflict(1, scripted([status(404)]).write, { what: 'x', reread: () => Promise.resolve(2) }), undefined);
  assert.is(await retryOnConflict(1, scripted([status(409)]).write, { what: 'x', reread: () => Promise.reject(status(404)) }), undefined);
  assert.is(await retryOnConflict(1, scripted([status(409)]).write, { what: 'x', reread: () => Promise.resolve(undefined) }), undefined);
});

test('retryOnConflict: with notFoundThrows a 404 at the write or the re-read is thrown, unwrapped', async () => {
  const missing = status(404);
  for (const [outcomes, reread] of [[[missing], () => Promise.resolve(2)], [[status(409)], () => Promise.reject(missing)]] as const) {
    try {
      await retryOnConflict(1, scripted(outcomes).write, { what: 'x', reread, notFoundThrows: true });
      assert.unreachable();
    } catch (error) {
      assert.is(error, missing);
    }
  }
});

test('retryOnConflict: any other error is thrown at once, unwrapped', async () => {
  const forbidden = status(403);
  const { write, seen } = scripted([forbidden]);
  try {
    await retryOnConflict(1, write, { what: 'x', reread: () => Promise.resolve(2) });
    assert.unreachable();
  } catch (error) {
    assert.is(error, forbidden);
  }
  assert.equal(seen, [1]);
});

test('retryOnConflict: a 422 is retried only with the guard predicate', async () => {
  const invalid = status(422);
  try {
    await retryOnConflict(1, scripted([invalid]).write, { what: 'x', reread: () => Promise.resolve(2) });
    assert.unreachable();
  } catch (error) {
    assert.is(error, invalid);
  }
  assert.is(await retryOnConflict(1, scripted([invalid, 'ok']).write, { what: 'x', reread: () => Promise.resolve(2), retryable: isStaleOrGuardFailed }), 'ok');
});

test('retryOnConflict: refused `attempts` times ends in RetryExhaustedError naming the write', async () => {
  const { write, seen } = scripted([status(409), status(409), status(409)]);
  try {
    await retryOnConflict(0, write, { what: 'Metal3Machine ns/m: recording its host', reread: () => Promise.resolve(seen.length), attempts: 3 });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, RetryExhaustedError);
    assert.match((error as Error).message, 'Metal3Machine ns/m: recording its host: still refused after 3 attempts');
  }
  assert.equal(seen, [0, 1, 2]);
});

test('backoffMs: initialMs times factor per attempt, within ± jitter (client-go DefaultBackoff: 10, 50, 250, 1250 ms)', () => {
  const b = { initialMs: 10, factor: 5, jitter: 0.1 };
  assert.equal([1, 2, 3, 4].map((a) => backoffMs(b, a, 0.5)), [10, 50, 250, 1250]);
  assert.is(backoffMs(b, 2, 0), 45);
  assert.is(backoffMs(b, 2, 0.999999), 55);
  assert.is(backoffMs({ initialMs: 0, factor: 2, jitter: 0.5 }, 3, 0.9), 0);
});

test('retryOnConflict with a backoff: it waits on the clock before each re-read, never before the first write', async () => {
  const { write, seen } = scripted([status(409), status(409), 'ok']);
  const waits: number[] = [];
  const clock: Clock = { now: () => 0, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
  let rereads = 0;
  const out = await retryOnConflict(1, write, {
    what: 'x',
    reread: () => Promise.resolve(2 + rereads++),
    backoff: { initialMs: 10, factor: 5, jitter: 0 },
    clock,
  });
  assert.is(out, 'ok');
  assert.equal(seen, [1, 2, 3]);
  assert.equal(waits, [10, 50]);
});

test.run();
