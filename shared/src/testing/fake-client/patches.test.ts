// Table tests of the fake's patch application (RFC 7386 merge patch, RFC 6902 JSON Patch).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonPatchOperation } from '@metal3-ts/generated';
import { applyJsonPatch, applyMergePatch, jsonEqual, PatchFailure } from './patches.ts';

const test = suite('fake apiserver patches');

const merges: [string, unknown, unknown, unknown][] = [
  ['adds and replaces members', { a: 1, b: 2 }, { b: 3, c: 4 }, { a: 1, b: 3, c: 4 }],
  ['null deletes', { a: 1, b: 2 }, { a: null }, { b: 2 }],
  ['merges nested objects', { a: { x: 1, y: 2 } }, { a: { y: null, z: 3 } }, { a: { x: 1, z: 3 } }],
  ['replaces arrays whole', { a: [1, 2, 3] }, { a: [4] }, { a: [4] }],
  ['a non-object patch replaces the target', { a: 1 }, [1], [1]],
  ['builds missing parents', {}, { a: { b: { c: 1 } } }, { a: { b: { c: 1 } } }],
];
for (const [name, target, patch, want] of merges) {
  test(`merge patch: ${name}`, () => assert.equal(applyMergePatch(target, patch), want));
}

const doc = { metadata: { finalizers: ['a', 'b'], labels: { 'x/y': '1' } }, spec: { n: 1 } };
const jsonPatches: [string, JsonPatchOperation[], unknown][] = [
  ['add to the end of an array', [{ op: 'add', path: '/metadata/finalizers/-', value: 'c' }], {
    ...doc,
    metadata: { ...doc.metadata, finalizers: ['a', 'b', 'c'] },
  }],
  ['add at an index', [{ op: 'add', path: '/metadata/finalizers/0', value: 'c' }], { ...doc, metadata: { ...doc.metadata, finalizers: ['c', 'a', 'b'] } }],
  ['remove an array entry', [{ op: 'remove', path: '/metadata/finalizers/0' }], { ...doc, metadata: { ...doc.metadata, finalizers: ['b'] } }],
  ['replace through an escaped key', [{ op: 'replace', path: '/metadata/labels/x~1y', value: '2' }], {
    ...doc,
    metadata: { ...doc.metadata, labels: { 'x/y': '2' } },
  }],
  ['move', [{ op: 'move', from: '/spec/n', path: '/spec/m' }], { ...doc, spec: { m: 1 } }],
  ['copy', [{ op: 'copy', from: '/spec/n', path: '/spec/m' }], { ...doc, spec: { n: 1, m: 1 } }],
  ['test passes on an equal value', [{ op: 'test', path: '/metadata/finalizers', value: ['a', 'b'] }], doc],
  ['test of null passes on a missing member', [{ op: 'test', path: '/metadata/annotations', value: null }], doc],
];
for (const [name, ops, want] of jsonPatches) {
  test(`JSON Patch: ${name}`, () => assert.equal(applyJsonPatch(doc, ops), want));
}

const failures: [string, JsonPatchOperation[]][] = [
  ['test of a different value', [{ op: 'test', path: '/metadata/finalizers', value: ['a'] }]],
  ['test of a value on a missing member', [{ op: 'test', path: '/metadata/annotations', value: {} }]],
  ['remove a missing member', [{ op: 'remove', path: '/metadata/annotations/x' }]],
  ['replace a missing member', [{ op: 'replace', path: '/spec/missing', value: 1 }]],
  ['add under a missing parent', [{ op: 'add', path: '/status/ready', value: true }]],
  ['an index past the end', [{ op: 'add', path: '/metadata/finalizers/3', value: 'c' }]],
  ['a pointer without a leading slash', [{ op: 'add', path: 'spec', value: 1 }]],
];
for (const [name, ops] of failures) {
  test(`JSON Patch refused: ${name}; the input is untouched`, () => {
    const before = structuredClone(doc);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/spec/first', value: 1 }, ...ops]), (e: unknown) => e instanceof PatchFailure);
    assert.equal(doc, before);
  });
}

test('jsonEqual ignores member order, not array order', () => {
  assert.ok(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }));
  assert.not.ok(jsonEqual({ b: [2, 1] }, { b: [1, 2] }));
  assert.not.ok(jsonEqual({ a: undefined }, {}));
});

test.run();
