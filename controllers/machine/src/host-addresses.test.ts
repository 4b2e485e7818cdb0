import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostAddresses, isHostname, isIPv4, isIPv6, MAX_ADDRESSES } from './host-addresses.ts';

const host = (hardware?: object): BareMetalHost => ({ metadata: { name: 'h', namespace: 'ns' }, spec: { online: true }, status: hardware ? { hardware } : {} }) as unknown as BareMetalHost;

test('IPv4: dotted quads only, no leading zeros, no ranges beyond 255', () => {
  for (const ok of ['192.168.111.20', '0.0.0.0', '255.255.255.255', '10.0.0.1']) assert.ok(isIPv4(ok), ok);
  for (const bad of ['', 'not-an-ip-7', '256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.4 ', ' 1.2.3.4', '1.2.3.4/24', 'fd00::1']) assert.not.ok(isIPv4(bad), bad);
});

test('IPv6: eight groups, or fewer with one "::", an IPv4 tail allowed, no zone, no prefix', () => {
  for (const ok of ['fd00::20', '::', '::1', '1::', '2001:db8:0:0:0:0:2:1', '2001:DB8::2:1', '::ffff:192.168.1.1', '1:2:3:4:5:6:1.2.3.4', 'fe80::1:2:3:4:5:6']) assert.ok(isIPv6(ok), ok);
  for (const bad of ['', '1.2.3.4', ':1', '1:', ':::', '1::2::3', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2:3:4:5:6:7:8', 'fe80::1%eth0', 'fd00::/64', '12345::1', 'g::1', '1:2:3:4:5:6:7:1.2.3.4', '::1.2.3']) {
    assert.not.ok(isIPv6(bad), bad);
  }
});

test('hostname: RFC 1123 labels of 1-63 characters, at most 253 in all, case kept', () => {
  for (const ok of ['node-0', 'Node-0.Example.com', 'a', `${'a'.repeat(63)}.b`, Array.from({ length: 4 }, () => 'a'.repeat(62)).join('.')]) assert.ok(isHostname(ok), ok);
  for (const bad of ['', '-node', 'node-', 'no_de', 'node..0', '.node', 'node.', 'a'.repeat(64), 'x'.repeat(5_000), `${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}`, 'nöde', 'node 0']) {
    assert.not.ok(isHostname(bad), bad.slice(0, 70));
  }
});

test('M-31: InternalIP per NIC with an address, then Hostname and InternalDNS; none without hardware', () => {
  assert.equal(hostAddresses(host()), { addresses: [], dropped: [] });
  assert.equal(hostAddresses(host({ hostname: 'node-0', nics: [{ name: 'eth0', ip: '192.168.111.20' }, { name: 'eth1' }, { name: 'eth2', ip: 'fd00::20' }] })), {
    addresses: [
      { type: 'InternalIP', address: '192.168.111.20' },
      { type: 'InternalIP', address: 'fd00::20' },
      { type: 'Hostname', address: 'node-0' },
      { type: 'InternalDNS', address: 'node-0' },
    ],
    dropped: [],
  });
  assert.equal(hostAddresses(host({ nics: [{ name: 'eth0', ip: '10.0.0.1' }] })), { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], dropped: [] });
});

test('M-31 (changed): junk NIC addresses and an over-long hostname are dropped, each named (long values by their length)', () => {
  const { addresses, dropped } = hostAddresses(
    host({ hostname: 'x'.repeat(5_000), nics: [{ name: 'eth0', ip: 'not-an-ip-7' }, { name: 'eth1', ip: '192.168.111.21' }, { name: 'eth2', ip: 'y'.repeat(300) }] }),
  );
  assert.equal(addresses, [{ type: 'InternalIP', address: '192.168.111.21' }]);
  assert.equal(dropped, [
    'hostname of 5000 characters (not a DNS name of at most 253 characters)',
    'NIC "eth0" address "not-an-ip-7" (not an IP address)',
    'NIC "eth2" address of 300 characters (not an IP address)',
  ]);
  for (const address of addresses) assert.ok(address.address.length <= 256, 'every kept value fits the schema');
});

test('M-31 (changed): at most MAX_ADDRESSES addresses, room kept for the hostname; the excess is counted', () => {
  const nics = Array.from({ length: 40 }, (_, i) => ({ name: `eth${i}`, ip: `10.0.0.${i + 1}` }));
  const named = hostAddresses(host({ hostname: 'node-0', nics }));
  assert.is(named.addresses.length, MAX_ADDRESSES);
  assert.equal(named.addresses.slice(-2), [{ type: 'Hostname', address: 'node-0' }, { type: 'InternalDNS', address: 'node-0' }]);
  assert.equal(named.dropped, ['10 NIC address(es) beyond the first 30']);
  const unnamed = hostAddresses(host({ nics }));
  assert.is(unnamed.addresses.length, MAX_ADDRESSES);
  assert.equal(unnamed.dropped, ['8 NIC address(es) beyond the first 32']);
});

test.run();
