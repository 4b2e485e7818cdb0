import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TerminalError } from '../reconcile/reconcile.ts';
import { isTerminalError, outcomeOfResult, outcomeOfThrow, ReconcilePanicError } from './outcome.ts';

const test = suite('reconcile outcome');

test('classifies throws: TerminalError (also wrapped or aggregated) is terminal, other Errors retry, the rest panic', () => {
  const rows: [string, unknown, string][] = [
    ['terminal', new TerminalError('bad spec'), 'terminal'],
    ['wrapped in cause', new Error('failed to reconcile', { cause: new TerminalError('bad') }), 'terminal'],
    ['inside AggregateError', new AggregateError([new Error('a'), new TerminalError('b')]), 'terminal'],
    ['plain error', new Error('conflict'), 'error'],
    ['TypeError is an Error', new TypeError('x is undefined'), 'error'],
    ['aggregate of retryables', new AggregateError([new Error('a')]), 'error'],
    ['string', 'boom', 'panic'],
    ['undefined', undefined, 'panic'],
    ['object', { code: 1 }, 'panic'],
  ];
  for (const [id, thrown, kind] of rows) assert.is(outcomeOfThrow(thrown).kind, kind, id);
});

test('a panic keeps the thrown value and says what it was', () => {
  const outcome = outcomeOfThrow({ code: 7 });
  if (outcome.kind !== 'panic') return assert.unreachable('not a panic');
  const error: ReconcilePanicError = outcome.error;
  assert.equal(error.value, { code: 7 });
  assert.is(error.message, 'panic: {"code":7} [recovered]');
  assert.is(new ReconcilePanicError(undefined).message, 'panic: undefined [recovered]');
});

test('a cause cycle does not hang the terminal check', () => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  assert.is(isTerminalError(a), false);
});

test('results: only a positive finite requeueAfterMs requeues; anything else is plain success', () => {
  assert.equal(outcomeOfResult({ requeueAfterMs: 30_000 }), { kind: 'success', result: { requeueAfterMs: 30_000 } });
  for (const r of [undefined, {}, { requeueAfterMs: 0 }, { requeueAfterMs: -5 }, { requeueAfterMs: Number.NaN }, { requeueAfterMs: Infinity }]) {
    assert.equal(outcomeOfResult(r), { kind: 'success', result: {} }, JSON.stringify(r));
  }
});

test.run();
