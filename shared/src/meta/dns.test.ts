import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isDnsName, isIP, isIPv4, isIPv6, MAX_DNS_NAME_LENGTH } from './dns.ts';

const test = suite('names and addresses');

test('IPv4: dotted quads only, no leading zeros, no ranges beyond 255', () => {
  for (const ok of ['192.168.111.20', '0.0.0.0', '255.255.255.255', '10.0.0.1']) assert.ok(isIPv4(ok), ok);
  for (const bad of ['', 'not-an-ip-7', '256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.04', '1.2.3.4 ', ' 1.2.3.4', '1.2.3.4/24', 'fd00::1']) {
    assert.not.ok(isIPv4(bad), bad);
  }
});

test('IPv6: eight groups, or fewer with one "::", an IPv4 tail allowed, no zone, no prefix', () => {
  for (
    const ok of ['fd00::20', '::', '::1', '1::', '2001:db8:0:0:0:0:2:1', '2001:DB8::2:1', '::ffff:192.168.1.1', '1:2:3:4:5:6:1.2.3.4', 'fe80::1:2:3:4:5:6']
  ) assert.ok(isIPv6(ok), ok);
  for (
    const bad of [
      '',
      '1.2.3.4',
      ':1',
      '1:',
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1::2:3:4:5:6:7:8',
      'fe80::1%eth0',
      'fd00::/64',
      '12345::1',
      'g::1',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1.2.3',
      '::ffff:01.2.3.4',
      '[fd00::1]',
    ]
  ) {
    assert.not.ok(isIPv6(bad), bad);
  }
});

test('isIP: either family, nothing else', () => {
  for (const ok of ['10.0.0.1', 'fd00:1::249']) assert.ok(isIP(ok), ok);
  for (const bad of ['not-an-ip-7', '300.1.1.1', 'fe80::1%eth0', '10.0.0.1:6443', 'https://10.0.0.1']) assert.not.ok(isIP(bad), bad);
});

const long = (n: number) => Array.from({ length: n }, () => 'a'.repeat(62)).join('.');
const names: [name: string, strict: boolean, lenient: boolean][] = [
  ['node-0', true, true],
  ['Node-0.Example.com', true, true],
  ['a', true, true],
  [`${'a'.repeat(63)}.b`, true, true],
  [long(4), true, true], // 251 characters
  [`${long(4)}.`, false, true], // the trailing dot does not count
  ['api_int.example', false, true],
  ['_srv.example', false, true],
  ['', false, false],
  ['.', false, false],
  ['-node', false, false],
  ['node-', false, false],
  ['node..0', false, false],
  ['.node', false, false],
  ['node.', false, true],
  ['a'.repeat(64), false, false],
  ['x'.repeat(5_000), false, false],
  [Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.'), false, false], // 255 characters
  ['nöde', false, false],
  ['node 0', false, false],
  ['https://api', false, false],
  ['api:6443', false, false],
];
for (const [name, strict, lenient] of names) {
  const shown = name.length > 40 ? `${name.slice(0, 20)}… (${name.length})` : JSON.stringify(name);
  test(`DNS name ${shown}: strict ${strict}, with underscore and trailing dot ${lenient}`, () => {
    assert.is(isDnsName(name), strict);
    assert.is(isDnsName(name, { underscore: true, trailingDot: true }), lenient);
  });
}

test('the limit is the DNS subdomain one', () => assert.is(MAX_DNS_NAME_LENGTH, 253));

test.run();
