// DR-22/DR-23: the YAML writer reproduces sigs.k8s.io/yaml (yaml.v2) output.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatNumber, keyLess, sortedKeys, toYaml } from './yaml.ts';
import { isBase60Float, resolvesToNonString, stringStyle } from './yaml-scalar.ts';

const test = suite('render/yaml: sigs.k8s.io/yaml-compatible output');

const line = (value: string): string => toYaml({ k: value }).slice(0, -1);

const scalarRows: Array<[string, string, string]> = [
  // value, emitted, why
  ['plain', 'k: plain', 'ordinary text'],
  ['', 'k: ""', 'empty string resolves to null'],
  ['yes', 'k: "yes"', 'YAML 1.1 boolean'],
  ['No', 'k: "No"', 'YAML 1.1 boolean'],
  ['on', 'k: "on"', 'YAML 1.1 boolean'],
  ['y', 'k: "y"', 'YAML 1.1 boolean'],
  ['true', 'k: "true"', 'boolean'],
  ['null', 'k: "null"', 'null'],
  ['~', 'k: "~"', 'null'],
  ['1500', 'k: "1500"', 'integer'],
  ['-12', 'k: "-12"', 'integer'],
  ['0x1F', 'k: "0x1F"', 'hex integer'],
  ['0o17', 'k: "0o17"', 'octal integer'],
  ['1_000', 'k: "1_000"', 'integer with underscores'],
  ['08', 'k: "08"', 'not octal, but a float'],
  ['1.5', 'k: "1.5"', 'float'],
  ['1e3', 'k: "1e3"', 'float'],
  ['.5', 'k: ".5"', 'float'],
  ['.inf', 'k: ".inf"', 'infinity'],
  ['1e400', 'k: 1e400', 'out of float range: a string for yaml.v2'],
  ['2001-01-01', 'k: "2001-01-01"', 'timestamp'],
  ['2001-13-01', 'k: 2001-13-01', 'not a date'],
  ['2001-01-01T10:00:00Z', 'k: "2001-01-01T10:00:00Z"', 'timestamp'],
  ['00:11:22:33:44:55', 'k: "00:11:22:33:44:55"', 'base-60 lookalike MAC'],
  ['12:34:56:78:9A:BC', 'k: 12:34:56:78:9A:BC', 'hex letters: not base 60'],
  ['192.168.0.14', 'k: 192.168.0.14', 'IPv4 address'],
  ['2001::8888', 'k: 2001::8888', 'IPv6 address'],
  ['2001::', "k: '2001::'", 'ends with ":"'],
  ['::', "k: '::'", 'leading ":" and trailing ":"'],
  ['a: b', "k: 'a: b'", '": " inside'],
  ['a #b', "k: 'a #b'", '" #" starts a comment'],
  ['a#b', 'k: a#b', '"#" not after a space'],
  ['#x', "k: '#x'", 'leading indicator'],
  ['- x', "k: '- x'", 'leading "- "'],
  ['-x', 'k: -x', '"-" not followed by a space'],
  ['*ref', "k: '*ref'", 'alias indicator'],
  ['!tag', "k: '!tag'", 'tag indicator'],
  ['[a', "k: '[a'", 'flow indicator first'],
  ['a,b', 'k: a,b', 'flow indicators inside are fine in block context'],
  ["it's", "k: it's", 'quote inside'],
  ["'q'", "k: '''q'''", 'leading quote, doubled inside single quotes'],
  [' lead', "k: ' lead'", 'leading space'],
  ['trail ', "k: 'trail '", 'trailing space'],
  ['---', "k: '---'", 'document marker'],
  ['a\tb', 'k: "a\\tb"', 'tab is not printable'],
  ['\u00e9t\u00e9', 'k: \u00e9t\u00e9', 'non-ASCII printable stays plain'],
  ['smile \u{1F600}', 'k: "smile \\U0001F600"', 'astral characters are escaped'],
  ['a\u0085b', 'k: a b', "a raw NEL survives Go's JSON and folds to a space when yaml.v2 reads it back"],
  ['a\u0085\u0085b', 'k: |-\n  a\n  b', 'two NELs fold to one newline'],
  ['a \u0085 b', 'k: a b', 'spaces around a folded NEL are dropped'],
  ['\ufeffx', 'k: "\\uFEFF\\x78"', 'libyaml checks for a BOM at the start of the value: everything is escaped'],
  ['x\ufeff', 'k: "x\\uFEFF"', 'a BOM elsewhere is escaped alone'],
  ['a\u2028b', "k: 'a\u2028  b'", 'line separator: single-quoted, the next line indented'],
  ['a\nb', 'k: |-\n  a\n  b', 'multi-line: literal, strip'],
  ['a\nb\n', 'k: |\n  a\n  b', 'multi-line with one final newline: clip'],
  ['a\n\n', 'k: |+\n  a\n', 'two final newlines: keep'],
  [' a\nb', 'k: |2-\n   a\n  b', 'leading space: indentation indicator'],
  ['a \nb', 'k: "a \\nb"', 'space before a break: double-quoted'],
];

for (const [value, expected, why] of scalarRows) {
  test(`DR-23: ${JSON.stringify(value)} → ${expected.split('\n')[0]} (${why})`, () => {
    assert.is(line(value), expected);
  });
}

test('DR-23: non-strings: integers plain, floats in Go %g form, booleans, null', () => {
  assert.is(
    toYaml({ a: 1500, b: -3, c: 0.5, d: 1e21, e: 1e-7, f: 123456789.5, g: true, h: null }),
    'a: 1500\nb: -3\nc: 0.5\nd: 1e+21\ne: 1e-07\nf: 1.234567895e+08\ng: true\nh: null\n',
  );
  assert.is(formatNumber(100000.5), '100000.5');
  assert.is(formatNumber(1000000.5), '1.0000005e+06');
  assert.is(formatNumber(0.0001), '0.0001');
  assert.is(formatNumber(0.00001), '1e-05');
});

test('DR-23: empty collections are [] and {}, nested sequences and mappings, sequences under a key not indented', () => {
  assert.is(
    toYaml({ a: [], b: {}, c: [[1, 2], []], d: [{ e: [1], f: { g: 'h' } }] }),
    'a: []\nb: {}\nc:\n- - 1\n  - 2\n- []\nd:\n- e:\n  - 1\n  f:\n    g: h\n',
  );
  assert.is(toYaml([]), '[]\n');
  assert.is(toYaml({}), '{}\n');
  assert.is(toYaml(['a', { b: 1 }]), '- a\n- b: 1\n');
});

test('DR-23: plain and quoted scalars fold at spaces beyond column 80; keys never fold', () => {
  const words = `${'x'.repeat(70)} word word word word`;
  assert.is(toYaml({ k: words }), `k: ${'x'.repeat(70)} word word\n  word word\n`);
  assert.is(toYaml({ k: `${words}: y` }), `k: '${'x'.repeat(70)} word word\n  word word: y'\n`);
  assert.is(toYaml({ k: `${'x'.repeat(70)} a\tb` }), `k: "${'x'.repeat(70)} a\\tb"\n`);
  assert.is(toYaml({ k: `${'x'.repeat(78)} a\tb` }), `k: "${'x'.repeat(78)}\n  a\\tb"\n`);
  assert.is(toYaml({ k: `${'x'.repeat(80)}  b c` }), `k: ${'x'.repeat(80)}  b\n  c\n`);
  assert.is(toYaml({ k: `${'x'.repeat(80)}  b\tc` }), `k: "${'x'.repeat(80)}\n  \\ b\\tc"\n`);
  assert.is(toYaml({ [`${'y'.repeat(90)} z z`]: 1 }), `${'y'.repeat(90)} z z: 1\n`);
  assert.is(toYaml({ k: ['x'.repeat(85) + ' tail'] }), `k:\n- ${'x'.repeat(85)}\n  tail\n`);
});

test('DR-23: keys longer than 128 bytes or spanning lines are written as complex keys', () => {
  const long = 'k'.repeat(129);
  assert.is(toYaml({ [long]: 'v' }), `? ${long}\n: v\n`);
  assert.is(toYaml({ [long]: { a: 1 } }), `? ${long}\n: a: 1\n`);
  assert.is(toYaml({ 'a\nb': 'v' }), '? |-\n  a\n  b\n: v\n');
  assert.is(toYaml({ ['k'.repeat(128)]: 'v' }), `${'k'.repeat(128)}: v\n`);
  assert.is(toYaml({ '': 'v', yes: 'v' }), '"": v\n"yes": v\n');
});

test('DR-23 (deviation): strings yaml.v2 refuses to read back are written escaped instead of failing', () => {
  assert.is(toYaml({ k: 'a\u007fb', l: 'a\u0086b', m: '\ufffe' }), 'k: "a\\x7Fb"\nl: "a\\x86b"\nm: "\\uFFFE"\n');
  assert.is(toYaml({ 'a\u0085b': 1 }), 'a b: 1\n');
});

test('DR-22: natural key order', () => {
  const rows: Array<[string, string, boolean]> = [
    ['String-1', 'providerid', true],
    ['Address-2', 'Address-10', true],
    ['Address-10', 'Address-2', false],
    ['bond_links', 'bondx', true],
    ['bond_links', 'bond_mode', true],
    ['bond_xmit_hash_policy', 'ethernet_mac_address', true],
    ['a', 'ab', true],
    ['ab', 'a', false],
    ['a1', 'a01', true],
    ['a01', 'a1', false],
    ['x9', 'x10', true],
    ['Z', 'a', true],
    ['1', 'a', true],
    ['a', 'a', false],
  ];
  for (const [a, b, less] of rows) assert.is(keyLess(a, b), less, `${a} < ${b}`);
  assert.equal(sortedKeys(['type', 'mtu', 'id', 'ethernet_mac_address']), ['ethernet_mac_address', 'id', 'mtu', 'type']);
  assert.equal(sortedKeys(['vlan_mac_address', 'vlan_link', 'vlan_id', 'type', 'mtu', 'id']), [
    'id',
    'mtu',
    'type',
    'vlan_id',
    'vlan_link',
    'vlan_mac_address',
  ]);
  assert.equal(sortedKeys(['type', 'routes', 'netmask', 'link', 'ip_address', 'id']), ['id', 'ip_address', 'link', 'netmask', 'routes', 'type']);
  assert.equal(sortedKeys(['services', 'network', 'netmask', 'gateway']), ['gateway', 'netmask', 'network', 'services']);
});

test('DR-23: the resolver and base-60 checks agree with yaml.v2 on edge cases', () => {
  for (
    const s of ['0', '-0', '+1', '0b101', '-0b1', '9223372036854775808', '18446744073709551616', 'Null', '.NaN', '-.inf', '2001-1-2', '2001-01-01 10:00:00']
  ) {
    assert.ok(resolvesToNonString(s), s);
  }
  for (const s of ['-', '+', '0x', '.', 'abc', '<<', 'x1', '2001-02-30', '-0x8000000000000001', 'nan', 'Yes!']) {
    assert.not.ok(resolvesToNonString(s), s);
  }
  assert.ok(isBase60Float('1:20'));
  assert.ok(isBase60Float('190:20:30.15'));
  assert.not.ok(isBase60Float('1:60'));
  assert.is(stringStyle('', true), 'double');
});

test.run();
