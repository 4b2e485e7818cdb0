// Table tests of the fake's list selectors (label selector text syntax, metadata field selectors).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { fieldMatcher, labelMatcher, SelectorError } from './selectors.ts';

const test = suite('fake apiserver selectors');
const obj = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
});
const objects = [obj('a', { pool: 'x', tier: 'gold' }), obj('b', { pool: 'y' }), obj('c'), obj('d', { 'example.com/role': 'edge' })];

const labels: [string, string[]][] = [
  ['', ['a', 'b', 'c', 'd']],
  ['pool=x', ['a']],
  ['pool==x', ['a']],
  ['pool!=x', ['b', 'c', 'd']],
  ['pool', ['a', 'b']],
  ['!pool', ['c', 'd']],
  ['pool in (x,y)', ['a', 'b']],
  ['pool notin (x)', ['b', 'c', 'd']],
  ['pool in (x), tier=gold', ['a']],
  ['example.com/role=edge', ['d']],
  ['pool=', []],
];
for (const [selector, want] of labels) {
  test(`label selector "${selector}"`, () => assert.equal(objects.filter(labelMatcher(selector)).map((o) => o.metadata.name), want));
}

for (const selector of ['pool=x y', 'pool in x', '-pool', 'pool=(x)']) {
  test(`label selector "${selector}" is refused`, () => assert.throws(() => labelMatcher(selector), (e: unknown) => e instanceof SelectorError));
}

test('field selectors on metadata.name and metadata.namespace; any other field is refused', () => {
  assert.equal(objects.filter(fieldMatcher('metadata.name=b')).map((o) => o.metadata.name), ['b']);
  assert.equal(objects.filter(fieldMatcher('metadata.name!=b,metadata.namespace=ns')).map((o) => o.metadata.name), ['a', 'c', 'd']);
  assert.throws(() => fieldMatcher('spec.nodeName=x'), (e: unknown) => e instanceof SelectorError);
});

test.run();
