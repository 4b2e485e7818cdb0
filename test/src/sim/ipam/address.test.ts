import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalIP, formatIP, formatSubnet, lastAddress, parseCIDR, parseIP, subnetContains } from './address.ts';

const test = suite('ipam address math');

test('parses and prints IPv4 and IPv6 canonically (RFC 5952)', () => {
  const table: [string, string | undefined][] = [
    ['192.168.0.1', '192.168.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['256.1.1.1', undefined],
    ['01.2.3.4', undefined],
    ['1.2.3', undefined],
    ['fd00::5', 'fd00::5'],
    ['FD00:0:0:0:0:0:0:0005', 'fd00::5'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::', 'fe80::'],
    ['::ffff:192.0.2.1', '::ffff:c000:201'],
    ['1::2::3', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
    ['12345::', undefined],
    ['', undefined],
  ];
  for (const [input, expected] of table) assert.is(canonicalIP(input), expected, input);
});

test('parses CIDR subnets, clearing host bits, and tests containment by family', () => {
  const subnet = parseCIDR('192.168.1.77/24');
  assert.ok(subnet);
  assert.is(formatSubnet(subnet), '192.168.1.0/24');
  assert.is(formatIP(lastAddress(subnet)), '192.168.1.255');
  assert.ok(subnetContains(subnet, parseIP('192.168.1.255')!));
  assert.not.ok(subnetContains(subnet, parseIP('192.168.2.0')!));
  assert.not.ok(subnetContains(subnet, parseIP('::1')!));
  const v6 = parseCIDR('fd00:1::9/64');
  assert.is(v6 && formatSubnet(v6), 'fd00:1::/64');
  assert.is(v6 && formatIP(lastAddress(v6)), 'fd00:1::ffff:ffff:ffff:ffff');
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/x', 'fd00::/129', 'x/8']) assert.is(parseCIDR(bad), undefined, bad);
});

test.run();
