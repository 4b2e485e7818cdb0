import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { InvalidSelectorError, isEmptySelector, selectorMatches, selectorString } from './machineset-selector.ts';

const test = suite('label selector (apimachinery semantics)');

const cases: { name: string; selector: Parameters<typeof selectorMatches>[0]; labels: Record<string, string> | undefined; want: boolean }[] = [
  { name: 'empty selector matches everything', selector: {}, labels: { a: '1' }, want: true },
  { name: 'empty selector matches an object without labels', selector: {}, labels: undefined, want: true },
  { name: 'matchLabels equal', selector: { matchLabels: { a: '1' } }, labels: { a: '1', b: '2' }, want: true },
  { name: 'matchLabels differ', selector: { matchLabels: { a: '1' } }, labels: { a: '2' }, want: false },
  { name: 'matchLabels missing key', selector: { matchLabels: { a: '1' } }, labels: {}, want: false },
  { name: 'In hit', selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, labels: { a: '2' }, want: true },
  { name: 'In miss', selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, labels: { a: '3' }, want: false },
  { name: 'NotIn with absent key', selector: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels: {}, want: true },
  { name: 'NotIn hit', selector: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels: { a: '1' }, want: false },
  { name: 'Exists', selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, labels: { a: '' }, want: true },
  { name: 'DoesNotExist', selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, labels: { a: '' }, want: false },
  {
    name: 'all requirements are ANDed',
    selector: { matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] },
    labels: { a: '1' },
    want: false,
  },
];

for (const c of cases) {
  test(`matches: ${c.name}`, () => {
    assert.is(selectorMatches(c.selector, c.labels), c.want);
  });
}

test('string form sorts requirements by key and prints each operator as apimachinery does', () => {
  const text = selectorString({
    matchLabels: { 'cluster.x-k8s.io/cluster-name': 'c1', b: 'x' },
    matchExpressions: [
      { key: 'z', operator: 'In', values: ['2', '1'] },
      { key: 'a', operator: 'DoesNotExist' },
      { key: 'm', operator: 'Exists' },
      { key: 'n', operator: 'NotIn', values: ['q'] },
    ],
  });
  assert.is(text, '!a,b=x,cluster.x-k8s.io/cluster-name=c1,m,n notin (q),z in (1,2)');
});

test('bad selectors are refused with a typed error', () => {
  assert.throws(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, {}), (e: unknown) => e instanceof InvalidSelectorError);
  assert.throws(
    () => selectorString({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    (e: unknown) => e instanceof InvalidSelectorError,
  );
  assert.throws(
    () => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, {}),
    (e: unknown) => e instanceof InvalidSelectorError,
  );
});

test('empty selector detection', () => {
  assert.ok(isEmptySelector(undefined));
  assert.ok(isEmptySelector({ matchLabels: {} }));
  assert.not.ok(isEmptySelector({ matchLabels: { a: '1' } }));
});

test.run();
