import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeLabelPatch, parsePrefixes, prefixProblem, syncSet } from './prefixes.ts';

const test = suite('label-sync prefixes and the Node label patch');

const prefixes = (...p: string[]) => new Set(p);

test('LS-4: the annotation is split on commas, trimmed, empties dropped', () => {
  const cases: [string, string[]][] = [
    ['my.org, team.example.com', ['my.org', 'team.example.com']],
    [' my.org ,, ,', ['my.org']],
    ['', []],
    ['a,a', ['a']],
  ];
  for (const [annotation, want] of cases) assert.equal(parsePrefixes(annotation), { kind: 'Prefixes', prefixes: new Set(want) }, annotation);
});

test("LS-4: one entry that is no DNS-1123 subdomain makes the whole set invalid, with upstream's message naming it", () => {
  const cases: [string, string, RegExp][] = [
    ['my.org, My.Org', 'My.Org', /^invalid prefix \(My\.Org\): a DNS-1123 subdomain must consist of lower case/],
    ['-bad', '-bad', /must start and end with an alphanumeric character .*regex used for validation is '\[a-z0-9\]/],
    ['ok.io,with/slash', 'with/slash', /^invalid prefix \(with\/slash\)/],
    ['a_b', 'a_b', /^invalid prefix \(a_b\)/],
    [`${'a'.repeat(254)}`, 'a'.repeat(254), /must be no more than 253 characters$/],
  ];
  for (const [annotation, prefix, message] of cases) {
    const parsed = parsePrefixes(annotation);
    assert.is(parsed.kind, 'Invalid', annotation);
    if (parsed.kind !== 'Invalid') continue;
    assert.is(parsed.prefix, prefix);
    assert.match(parsed.message, message);
  }
  assert.is(prefixProblem('a'.repeat(253)), undefined, '253 characters are allowed');
});

test('LS-5: the sync set is <prefix>/<name> keys with both parts non-empty and the prefix in the set', () => {
  const labels = { 'my.org/rack': 'r1', 'my.org/': 'x', '/rack': 'y', 'my.org': 'z', env: 'prod', 'other.io/a': 'b', 'my.org/a/b': 'c' };
  assert.equal(Object.fromEntries(syncSet(labels, prefixes('my.org'))), { 'my.org/rack': 'r1', 'my.org/a/b': 'c' });
  assert.equal(syncSet(undefined, prefixes('my.org')).size, 0);
  assert.equal(syncSet(labels, prefixes()).size, 0);
});

test("LS-8: upstream's example as one merge patch; other labels untouched", () => {
  const host = { 'my.org/rack': 'r12', 'team.example.com/owner': 'ops', env: 'prod' };
  const node = { 'my.org/rack': 'r11', 'my.org/stale': 'x', 'kubernetes.io/hostname': 'n1' };
  assert.equal(nodeLabelPatch(host, node, prefixes('my.org', 'team.example.com')), {
    'my.org/rack': 'r12',
    'my.org/stale': null,
    'team.example.com/owner': 'ops',
  });
});

test('LS-6: no patch when the Node agrees (no request), and the direction is host → Node only', () => {
  const cases: [string, Record<string, string> | undefined, Record<string, string> | undefined, Record<string, string | null> | undefined][] = [
    ['agrees', { 'my.org/a': '1', env: 'x' }, { 'my.org/a': '1', other: 'y' }, undefined],
    ['nothing under the prefix anywhere', { env: 'x' }, { 'kubernetes.io/hostname': 'n' }, undefined],
    ['label added on the host', { 'my.org/a': '1' }, {}, { 'my.org/a': '1' }],
    ['label removed from the host', {}, { 'my.org/a': '1', 'other.io/a': '1' }, { 'my.org/a': null }],
    ['value changed', { 'my.org/a': '2' }, { 'my.org/a': '1' }, { 'my.org/a': '2' }],
    ['Node without labels', { 'my.org/a': '1' }, undefined, { 'my.org/a': '1' }],
    ['a label of another prefix on the Node is never touched', {}, { 'other.io/a': '1' }, undefined],
  ];
  for (const [name, host, node, want] of cases) assert.equal(nodeLabelPatch(host, node, prefixes('my.org')), want, name);
});

test.run();
