import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Checks, renderChecks } from './health.ts';

const test = suite('health checks');

test('renders ok, the verbose list, and failures in the healthz format', () => {
  assert.equal(renderChecks('readyz', [{ name: 'a', ok: true }], false), { status: 200, body: 'ok' });
  assert.equal(renderChecks('readyz', [{ name: 'a', ok: true }], true), { status: 200, body: '[+]a ok\nreadyz check passed\n' });
  assert.equal(renderChecks('healthz', [{ name: 'a', ok: true }, { name: 'b', ok: false }], false), {
    status: 500,
    body: '[+]a ok\n[-]b failed: reason withheld\nhealthz check failed\n',
  });
  assert.equal(renderChecks('readyz', [], false), { status: 200, body: 'ok' });
});

test('checks run concurrently; throwing or rejecting counts as failing; one check by name; unknown is 404', async () => {
  const checks = new Checks('readyz');
  checks.add('sync', () => Promise.resolve(true));
  checks.add('boom', () => {
    throw new Error('x');
  });
  checks.add('rejects', () => Promise.reject(new Error('y')));
  assert.equal(await checks.run(), [
    { name: 'sync', ok: true },
    { name: 'boom', ok: false },
    { name: 'rejects', ok: false },
  ]);
  assert.equal(await checks.run({ only: 'sync' }), [{ name: 'sync', ok: true }]);
  assert.is(await checks.run({ only: 'none' }), undefined);
  assert.equal(await checks.respond('', new URLSearchParams('exclude=boom&exclude=rejects')), { status: 200, body: 'ok' });
  assert.is((await checks.respond('none', new URLSearchParams())).status, 404);
});

test('a failing check may give its reason, shown instead of "reason withheld"', async () => {
  const checks = new Checks('readyz');
  checks.add('informers', () => ({ ok: false, reason: 'cannot watch baremetalhosts.metal3.io (1 attempt): 403\nForbidden' }));
  checks.add('ping', () => ({ ok: true, reason: 'ignored when ok' }));
  assert.equal(await checks.respond('', new URLSearchParams()), {
    status: 500,
    body: '[-]informers failed: cannot watch baremetalhosts.metal3.io (1 attempt): 403 Forbidden\n[+]ping ok\nreadyz check failed\n',
  });
});

test('names are validated and unique', () => {
  const checks = new Checks('healthz');
  checks.add('ping', () => true);
  assert.throws(() => checks.add('ping', () => true), /already registered/);
  assert.throws(() => checks.add('a/b', () => true), /check name/);
  assert.equal(checks.names(), ['ping']);
});

test.run();
