// Merge-patch generation (RFC 7386) and the pitfalls of ecosystem 8.4: explicit null deletes,
// arrays sent whole, undefined never silently dropped.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyMergePatch, createMergePatch, deepEqual, mergePatches } from './diff.ts';

const test = suite('merge patch diff');

test('equal objects give no patch, even when one has undefined properties', () => {
  assert.is(createMergePatch({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } }), undefined);
  assert.is(createMergePatch({ a: 1 }, { a: 1, b: undefined }), undefined);
});

test('removed keys (missing, undefined or null) are sent as explicit null', () => {
  assert.equal(createMergePatch({ spec: { a: 1, b: 2, c: 3 } }, { spec: { a: 1, b: undefined, c: null } }), { spec: { b: null, c: null } });
  assert.equal(createMergePatch({ metadata: { labels: { x: 'y' } } }, { metadata: {} }), { metadata: { labels: null } });
  assert.is(JSON.stringify(createMergePatch({ k: 1 }, {})), '{"k":null}');
});

test('arrays are replaced whole; nested objects are diffed key by key', () => {
  assert.equal(createMergePatch({ f: ['a', 'b'], m: { x: 1, y: 2 } }, { f: ['a'], m: { x: 1, y: 3 } }), { f: ['a'], m: { y: 3 } });
  assert.equal(createMergePatch({ f: [{ a: 1 }] }, { f: [{ a: 1, b: undefined }] }), undefined);
});

test('applying the diff to before yields after (round trip)', () => {
  const cases: [unknown, unknown][] = [
    [{}, { a: { b: { c: 1 } } }],
    [{ a: { b: { c: 1 } } }, {}],
    [{ a: [1, 2, 3], s: 'x' }, { a: [3], s: 'y', n: 0, t: false }],
    [{ a: { b: 1 } }, { a: 'scalar' }],
    [{ a: 'scalar' }, { a: { b: 1 } }],
  ];
  for (const [before, after] of cases) {
    const patch = createMergePatch(before, after);
    assert.ok(deepEqual(applyMergePatch(before, patch ?? {}), after), JSON.stringify({ before, after, patch }));
  }
});

test('mergePatches combines two patches, the second winning on scalars', () => {
  assert.equal(mergePatches({ status: { a: 1 } }, { status: { b: 2 }, metadata: { resourceVersion: '7' } }), {
    status: { a: 1, b: 2 },
    metadata: { resourceVersion: '7' },
  });
  assert.equal(mergePatches(undefined, { a: 1 }), { a: 1 });
  assert.is(mergePatches(undefined, undefined), undefined);
});

test.run();
