import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IPPoolSpec } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { formatIP } from './address.ts';
import {
  addressName,
  allocate,
  type AllocationOutcome,
  entryAddress,
  EXHAUSTED_MESSAGE,
  type PoolEntry,
  poolInventory,
  PREALLOCATED_OUT_OF_BOUNDS_MESSAGE,
  validatePool,
} from './allocation.ts';

const test = suite('ipam allocation (pure)');

const at = (entry: PoolEntry, index: number): string => {
  const result = entryAddress(entry, BigInt(index));
  return 'address' in result ? formatIP(result.address) : `error: ${result.error}`;
};

const address = (outcome: AllocationOutcome): string => ('allocation' in outcome ? outcome.allocation.address : `error: ${outcome.error}`);

test('the address at an index of one range (start/end, subnet only, start within subnet)', () => {
  const table: [PoolEntry, number, string][] = [
    [{ start: '192.168.0.10', end: '192.168.0.12' }, 0, '192.168.0.10'],
    [{ start: '192.168.0.10', end: '192.168.0.12' }, 2, '192.168.0.12'],
    [{ start: '192.168.0.10', end: '192.168.0.12' }, 3, 'error: address out of bounds'],
    [{ start: '192.168.0.255', end: '192.168.1.1' }, 1, '192.168.1.0'],
    [{ subnet: '192.168.0.0/30' }, 0, '192.168.0.1'],
    [{ subnet: '192.168.0.0/30' }, 2, '192.168.0.3'],
    [{ subnet: '192.168.0.0/30' }, 3, 'error: address out of bounds'],
    [{ start: '192.168.0.250', subnet: '192.168.0.0/24' }, 5, '192.168.0.255'],
    [{ start: '192.168.0.250', subnet: '192.168.0.0/24' }, 6, 'error: address out of bounds'],
    [{ start: '255.255.255.255' }, 1, 'error: address overflow past 255.255.255.255'],
    [{ start: 'fd00::ffff', end: 'fd00::1:1' }, 1, 'fd00::1:0'],
    [{ subnet: 'fd00:1::/120' }, 0, 'fd00:1::1'],
    [{ end: '10.0.0.5' }, 0, 'error: either start or subnet is required'],
    [{ start: 'not-an-ip' }, 0, 'error: invalid start "not-an-ip"'],
  ];
  for (const [entry, index, expected] of table) assert.is(at(entry, index), expected, `${JSON.stringify(entry)} @${index}`);
});

test('allocates the first free address, skipping taken ones and moving on to the next range', () => {
  const spec: IPPoolSpec = {
    namePrefix: 'p',
    prefix: 24,
    gateway: '192.168.0.1',
    dnsServers: ['8.8.8.8'],
    pools: [{ start: '192.168.0.10', end: '192.168.0.11' }, { start: '10.0.0.5', end: '10.0.0.9', prefix: 16, gateway: '10.0.0.1', dnsServers: ['10.0.0.2'] }],
  };
  const table: [string[], AllocationOutcome][] = [
    [[], { allocation: { address: '192.168.0.10', prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'] } }],
    [['192.168.0.10'], { allocation: { address: '192.168.0.11', prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'] } }],
    [['192.168.0.10', '192.168.0.11'], { allocation: { address: '10.0.0.5', prefix: 16, gateway: '10.0.0.1', dnsServers: ['10.0.0.2'] } }],
    [['192.168.0.10', '192.168.0.11', '10.0.0.5', '10.0.0.6', '10.0.0.7', '10.0.0.8', '10.0.0.9'], { error: EXHAUSTED_MESSAGE }],
    // A gap below taken addresses is reused first.
    [['192.168.0.11'], { allocation: { address: '192.168.0.10', prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'] } }],
  ];
  for (const [taken, expected] of table) assert.equal(allocate(spec, 'claim', new Set(taken)), expected, taken.join(','));
});

test('a pre-allocated claim gets its address (even though it counts as in use); outside every range it fails', () => {
  const spec: IPPoolSpec = {
    namePrefix: 'p',
    pools: [{ start: '192.168.0.10', end: '192.168.0.20' }],
    preAllocations: { fixed: '192.168.0.15', stray: '10.9.9.9', unparsable: '192.168.000.16' },
  };
  const { inUse } = poolInventory(spec, [], false);
  assert.is(address(allocate(spec, 'fixed', inUse)), '192.168.0.15');
  assert.is(address(allocate(spec, 'other', inUse)), '192.168.0.10');
  assert.is(address(allocate(spec, 'stray', inUse)), `error: ${PREALLOCATED_OUT_OF_BOUNDS_MESSAGE}`);
  // An unparsable pre-allocation can never be handed out.
  assert.is(address(allocate(spec, 'unparsable', inUse)), `error: ${PREALLOCATED_OUT_OF_BOUNDS_MESSAGE}`);
  // Pre-allocated addresses are not handed to other claims.
  const tight: IPPoolSpec = { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.2' }], preAllocations: { a: '10.0.0.1' } };
  assert.is(address(allocate(tight, 'b', poolInventory(tight, [], false).inUse)), '10.0.0.2');
});

test('IPv6 ranges allocate by value, whatever the text of taken addresses', () => {
  const spec: IPPoolSpec = { namePrefix: 'v6', prefix: 64, pools: [{ subnet: 'fd00::/126' }] };
  const { inUse } = poolInventory(spec, [{ claimName: 'a', address: 'FD00:0:0:0:0:0:0:0001' }], false);
  assert.is(address(allocate(spec, 'b', inUse)), 'fd00::2');
});

test('an unbounded or huge range with many taken addresses still answers quickly', () => {
  const taken = new Set(Array.from({ length: 5000 }, (_, i) => `fd00::${(i + 1).toString(16)}`));
  const spec: IPPoolSpec = { namePrefix: 'big', pools: [{ subnet: 'fd00::/64' }] };
  assert.is(address(allocate(spec, 'x', taken)), 'fd00::1389');
});

test("invalid ranges are named in the failure message after the real manager's text", () => {
  const table: [PoolEntry[], string][] = [
    [[{ start: '10.0.0.9', end: '10.0.0.1' }], `${EXHAUSTED_MESSAGE} (invalid pool: pools[0]: start 10.0.0.9 is after end 10.0.0.1)`],
    [[{ start: '10.1.0.1', subnet: '10.0.0.0/24' }], `${EXHAUSTED_MESSAGE} (invalid pool: pools[0]: start 10.1.0.1 is not in subnet 10.0.0.0/24)`],
    [[{ subnet: '10.0.0.0/32' }], EXHAUSTED_MESSAGE],
    [[], `${EXHAUSTED_MESSAGE} (invalid pool: spec.pools is empty)`],
  ];
  for (const [pools, message] of table) assert.is(address(allocate({ namePrefix: 'p', pools }, 'c', new Set())), `error: ${message}`);
});

test('validatePool lists every problem of every range', () => {
  assert.equal(
    validatePool({
      pools: [
        { start: '10.0.0.1', end: '10.0.0.9', subnet: '10.0.0.0/24', gateway: '10.0.0.254' },
        { start: '10.0.1.9', end: '10.0.1.1', subnet: '10.0.0.0/24' },
        { end: '10.0.0.5' },
        { start: '10.0.0.1', end: 'fd00::1' },
        { subnet: '10.0.0.0/8', prefix: 40, gateway: 'fd00::1' },
      ],
    }),
    [
      'pools[1]: start 10.0.1.9 is after end 10.0.1.1',
      'pools[1]: start 10.0.1.9 is not in subnet 10.0.0.0/24',
      'pools[1]: end 10.0.1.1 is not in subnet 10.0.0.0/24',
      'pools[2]: either start or subnet is required',
      'pools[3]: start 10.0.0.1 and end fd00::1 are of different IP families',
      'pools[4]: prefix 40 is longer than an IPv4 address',
      'pools[4]: gateway fd00::1 is not an IPv4 address',
    ],
  );
});

test('IPAddress names: prefix, address with dots and colons as dashes, no trailing dash', () => {
  const table: [string, string][] = [
    ['192.168.0.10', 'pool-192-168-0-10'],
    ['fd00::5', 'pool-fd00--5'],
    ['fd00::', 'pool-fd00'],
  ];
  for (const [ip, name] of table) assert.is(addressName('pool', ip), name, ip);
});

test('the inventory indexes claims by name and keeps pre-allocations in use unless the pool is deleting', () => {
  const spec = { preAllocations: { c: '10.0.0.3' } };
  const recorded = [
    { claimName: 'a', address: '10.0.0.1' },
    { claimName: '', address: '10.0.0.2' },
  ];
  const live = poolInventory(spec, recorded, false);
  assert.equal(live.indexes, { a: '10.0.0.1', '': '10.0.0.2' });
  assert.equal([...live.inUse].sort(), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  assert.equal([...poolInventory(spec, recorded, true).inUse].sort(), ['10.0.0.1', '10.0.0.2']);
});

test.run();
