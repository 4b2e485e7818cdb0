// RS-14 / R-15 / R-16: what the Node backups look like and how a restore merges them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseBackup, restoredMap, serialiseMap } from './backup.ts';
import { parseGoDuration } from './duration.ts';

test('R-15 compact JSON, keys sorted; a nil map is ""', () => {
  assert.is(serialiseMap({ foo: 'bar' }), '{"foo":"bar"}');
  assert.is(serialiseMap({ b: '2', a: '1', 'node-role.kubernetes.io/worker': '' }), '{"a":"1","b":"2","node-role.kubernetes.io/worker":""}');
  assert.is(serialiseMap({}), '{}');
  assert.is(serialiseMap(undefined), '');
});

test('R-16 unreadable or empty backups restore nothing', () => {
  assert.equal(parseBackup(''), {});
  assert.equal(parseBackup('{oops'), {});
  assert.equal(parseBackup('[1]'), {});
  assert.equal(parseBackup('{"answer":"42"}'), { answer: '42' });
});

test('RS-14 restore adds only the keys the new Node lacks', () => {
  const old = parseBackup('{"node-role.kubernetes.io/worker":"","zone":"a"}');
  assert.equal(restoredMap({ zone: 'b' }, old), { zone: 'b', 'node-role.kubernetes.io/worker': '' });
  assert.is(restoredMap({ zone: 'b', 'node-role.kubernetes.io/worker': 'x' }, old), undefined);
  assert.equal(restoredMap(undefined, { a: '1' }), { a: '1' });
});

test('W-12 timeouts are Go durations', () => {
  assert.is(parseGoDuration('10m'), 600_000);
  assert.is(parseGoDuration('1h30m0s'), 5_400_000);
  assert.is(parseGoDuration('100s'), 100_000);
  assert.is(parseGoDuration('1.5s'), 1_500);
  assert.is(parseGoDuration('soon'), undefined);
  assert.is(parseGoDuration(''), undefined);
});

test.run();
