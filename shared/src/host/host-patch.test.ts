import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyHost, deepEqual, hostMergePatch, mergePatchBetween } from './host-patch.ts';
import { testHost } from './testing.ts';

const test = suite('host merge patch');

test('mergePatchBetween: changed members, null for removed ones, arrays whole, undefined when equal', () => {
  const table: [before: unknown, after: unknown, patch: unknown][] = [
    [{ a: 1 }, { a: 1 }, undefined],
    [{ a: 1 }, { a: 2 }, { a: 2 }],
    [{ a: 1, b: 2 }, { a: 1 }, { b: null }],
    [{ a: 1 }, { a: 1, b: { c: 3 } }, { b: { c: 3 } }],
    [{ m: { x: '1', y: '2' } }, { m: { x: '1', y: '3', z: '4' } }, { m: { y: '3', z: '4' } }],
    [{ l: [1, 2] }, { l: [1, 2] }, undefined],
    [{ l: [1, 2] }, { l: [2, 1] }, { l: [2, 1] }],
    [{ o: { deep: { x: 1 } } }, { o: 'flat' }, { o: 'flat' }],
    [{ a: undefined }, {}, undefined],
  ];
  for (const [before, after, patch] of table) assert.equal(mergePatchBetween(before, after), patch, JSON.stringify([before, after]));
  assert.ok(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }));
  assert.not.ok(deepEqual({ a: [1] }, { a: [1, 2] }));
});

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
