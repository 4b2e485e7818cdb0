import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyHost, hostMergePatch } from './host-patch.ts';
import { testHost } from './testing.ts';

const test = suite('host merge patch');

test('hostMergePatch covers metadata and spec only, never status', () => {
  const host = testHost('h', { resourceVersion: '42' });
  const next = copyHost(host);
  next.spec = { ...next.spec!, online: true };
  next.status = { ...next.status!, poweredOn: true };
  assert.equal(hostMergePatch(host, next), { spec: { online: true } });
  const statusOnly = copyHost(host);
  statusOnly.status = { ...statusOnly.status!, poweredOn: true };
  assert.is(hostMergePatch(host, statusOnly), undefined);
});

test('an optimistic lock adds the resourceVersion the desired host was derived from', () => {
  const host = testHost('h', { resourceVersion: '42' });
  const next = copyHost(host);
  next.metadata.labels = { a: 'b' };
  assert.equal(hostMergePatch(host, next, { optimisticLock: true }), { metadata: { labels: { a: 'b' }, resourceVersion: '42' } });
  assert.is(hostMergePatch(host, copyHost(host), { optimisticLock: true }), undefined, 'no change: nothing to lock');
});

test('copyHost returns a mutable copy of a frozen cached host', () => {
  const frozen = Object.freeze(testHost('h'));
  const copy = copyHost(frozen);
  copy.metadata.name = 'changed';
  assert.is(frozen.metadata.name, 'h');
});

test.run();
