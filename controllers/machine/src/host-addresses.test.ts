import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostAddresses, MAX_ADDRESSES } from './host-addresses.ts';

const host = (hardware?: object): BareMetalHost =>
  ({ metadata: { name: 'h', namespace: 'ns' }, spec: { online: true }, status: hardware ? { hardware } : {} }) as unknown as BareMetalHost;

// The IP and DNS-name rules themselves are table-tested in shared/src/meta/dns.test.ts.
test('M-31 (changed): what the filter refuses: not-an-ip-7, zones, prefixes, leading zeros, bad hostnames', () => {
  const nics = ['not-an-ip-7', 'fe80::1%eth0', '192.168.1.7/24', '010.1.1.1', 'fd00::/64', '192.168.111.20'].map((ip, i) => ({ name: `eth${i}`, ip }));
  const result = hostAddresses(host({ hostname: 'no_de', nics }));
  assert.equal(result.addresses, [{ type: 'InternalIP', address: '192.168.111.20' }]);
  assert.is(result.dropped.length, 6);
  assert.match(result.dropped[0] ?? '', /hostname "no_de" \(not a DNS name of at most 253 characters\)/);
});

test('M-31: InternalIP per NIC with an address, then Hostname and InternalDNS; none without hardware', () => {
  assert.equal(hostAddresses(host()), { addresses: [], dropped: [] });
  assert.equal(
    hostAddresses(host({ hostname: 'node-0', nics: [{ name: 'eth0', ip: '192.168.111.20' }, { name: 'eth1' }, { name: 'eth2', ip: 'fd00::20' }] })),
    {
      addresses: [
        { type: 'InternalIP', address: '192.168.111.20' },
        { type: 'InternalIP', address: 'fd00::20' },
        { type: 'Hostname', address: 'node-0' },
        { type: 'InternalDNS', address: 'node-0' },
      ],
      dropped: [],
    },
  );
  assert.equal(hostAddresses(host({ nics: [{ name: 'eth0', ip: '10.0.0.1' }] })), { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], dropped: [] });
});

test('M-31 (changed): junk NIC addresses and an over-long hostname are dropped, each named (long values by their length)', () => {
  const { addresses, dropped } = hostAddresses(
    host({
      hostname: 'x'.repeat(5_000),
      nics: [{ name: 'eth0', ip: 'not-an-ip-7' }, { name: 'eth1', ip: '192.168.111.21' }, { name: 'eth2', ip: 'y'.repeat(300) }],
    }),
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
