import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newLogger, parseLevel } from './logger.ts';

const test = suite('logger');

test('writes one JSON object per line with inherited fields, below-level lines dropped', () => {
  const lines: string[] = [];
  const log = newLogger({ level: 'info', sink: (l) => lines.push(l) }).with({ controller: 'metal3machine' });
  log.debug('hidden');
  log.with({ namespace: 'ns', name: 'm-1', reconcileID: 'abc' }).info('host claimed', { host: 'ns/bmh-0' });
  assert.is(lines.length, 1);
  const entry = JSON.parse(lines[0] as string);
  assert.is(entry.level, 'info');
  assert.is(entry.msg, 'host claimed');
  assert.is(entry.controller, 'metal3machine');
  assert.is(entry.reconcileID, 'abc');
  assert.is(entry.host, 'ns/bmh-0');
  assert.match(entry.ts, /^\d{4}-\d\d-\d\dT/);
});

test('errors are logged by name and message', () => {
  const lines: string[] = [];
  newLogger({ sink: (l) => lines.push(l) }).error('failed', { error: new RangeError('too far') });
  assert.is(JSON.parse(lines[0] as string).error, 'RangeError: too far');
});

test('parseLevel names the accepted values', () => {
  assert.is(parseLevel('warn'), 'warn');
  assert.throws(() => parseLevel('verbose'), /debug, info, warn, error/);
});

test.run();
