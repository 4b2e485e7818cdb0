import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isTerminalError, lowestRequeue, requestFromKey, requestKey, TerminalError } from './reconcile.ts';

const test = suite('reconcile contract');

test('request keys round-trip for namespaced and cluster-scoped objects', () => {
  assert.is(requestKey({ namespace: 'ns', name: 'm' }), 'ns/m');
  assert.is(requestKey({ name: 'node-1' }), 'node-1');
  assert.equal(requestFromKey('ns/m'), { namespace: 'ns', name: 'm' });
  assert.equal(requestFromKey('node-1'), { name: 'node-1' });
});

test('lowestRequeue keeps the smaller non-zero wait', () => {
  assert.equal(lowestRequeue({}, {}), {});
  assert.equal(lowestRequeue({ requeueAfterMs: 30_000 }, {}), { requeueAfterMs: 30_000 });
  assert.equal(lowestRequeue({ requeueAfterMs: 0 }, { requeueAfterMs: 5 }), { requeueAfterMs: 5 });
  assert.equal(lowestRequeue({ requeueAfterMs: 30_000 }, { requeueAfterMs: 1_000 }), { requeueAfterMs: 1_000 });
});

test('terminal errors are recognised and keep their cause', () => {
  const cause = new Error('bad spec');
  const e = new TerminalError('cannot reconcile', { cause });
  assert.ok(isTerminalError(e));
  assert.is(e.cause, cause);
  assert.not.ok(isTerminalError(new Error('x')));
});

test.run();
