// The chaos run's invariant checks as tables: each violation is found and named, and a healthy world
// (including what node reuse and deletion legitimately look like) yields none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Secret } from '@metal3-ts/generated/core/v1';
import { heldByIpam, HOST_ANNOTATION, leftovers, violations, type World } from './invariants.ts';

const host = (name: string, consumer?: string, extra: Record<string, unknown> = {}) =>
  ({ metadata: { name, uid: `uid-${name}`, ...extra }, spec: consumer ? { consumerRef: { kind: 'Metal3Machine', name: consumer } } : {} }) as unknown as World[
    'hosts'
  ][number];
const m3m = (name: string, hostName?: string, deleting = false, providerID?: string) =>
  ({
    metadata: {
      name,
      annotations: hostName ? { [HOST_ANNOTATION]: `ns/${hostName}` } : {},
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: providerID ? { providerID } : {},
  }) as unknown as World['metal3Machines'][number];
const machine = (name: string, providerID?: string) => ({ metadata: { name }, spec: { providerID } }) as unknown as World['machines'][number];
const data = (name: string, template: string, index: number) =>
  ({ metadata: { name }, spec: { template: { name: template }, index } }) as unknown as World['datas'][number];
const address = (name: string, pool: string, ip: string) =>
  ({ metadata: { name }, spec: { pool: { name: pool }, address: ip } }) as unknown as World['ipAddresses'][number];
const world = (w: Partial<World>): World => ({ hosts: [], metal3Machines: [], machines: [], datas: [], ipAddresses: [], ...w });

const cases: [string, World, string[]][] = [
  ['an empty world holds', world({}), []],
  [
    'a healthy cluster holds; a deleting Metal3Machine keeping its annotation beside its successor on the same host is node reuse, not a double claim',
    world({
      hosts: [host('h0', 'a'), host('h1', 'b')],
      metal3Machines: [m3m('a', 'h0', false, 'metal3://ns/h0/a'), m3m('b', 'h1', false, 'metal3://ns/h1/b'), m3m('old', 'h0', true, 'metal3://ns/h0/old')],
      machines: [machine('a', 'metal3://ns/h0/a'), machine('b', 'metal3://ns/h1/b'), machine('c')],
      datas: [data('a-0', 't', 0), data('b-1', 't', 1), data('x-0', 'u', 0)],
      ipAddresses: [address('p-1', 'p', '10.0.0.1'), address('p-2', 'p', '10.0.0.2'), address('q-1', 'q', '10.0.0.1')],
    }),
    [],
  ],
  [
    'a host recorded by two live Metal3Machines before either has a provider ID is a claim race being settled, not a violation',
    world({ metal3Machines: [m3m('a', 'h0'), m3m('b', 'h0')] }),
    [],
  ],
  [
    'a host used by two live Metal3Machines with provider IDs',
    world({ metal3Machines: [m3m('a', 'h0', false, 'metal3://ns/h0/a'), m3m('b', 'h0', false, 'metal3://ns/h0/b')] }),
    ['host ns/h0 used by two Metal3Machines: a, b'],
  ],
  ['a Metal3Machine holding two hosts', world({ hosts: [host('h0', 'a'), host('h1', 'a')] }), ['Metal3Machine a holds two hosts: h0, h1']],
  ['a provider ID on two Machines', world({ machines: [machine('a', 'metal3://x'), machine('b', 'metal3://x')] }), [
    'provider ID metal3://x on two Machines: a, b',
  ]],
  ['a provider ID on two Metal3Machines', world({ metal3Machines: [m3m('a', undefined, false, 'metal3://x'), m3m('b', undefined, true, 'metal3://x')] }), [
    'provider ID metal3://x on two Metal3Machines: a, b',
  ]],
  ['an index on two Metal3Data of one template', world({ datas: [data('a', 't', 3), data('b', 't', 3)] }), ['index t#3 on two Metal3Data: a, b']],
  ['an address on two IPAddresses of one pool', world({ ipAddresses: [address('a', 'p', '10.0.0.9'), address('b', 'p', '10.0.0.9')] }), [
    'address p:10.0.0.9 on two IPAddresses: a, b',
  ]],
];
for (const [name, w, want] of cases) {
  test(`violations: ${name}`, () => {
    assert.equal(violations(w), want);
  });
}

const secret = (name: string, owners: { kind: string; name: string; uid: string }[] = []) =>
  ({ metadata: { name, ownerReferences: owners.length ? owners : undefined } }) as unknown as Secret;

test('leftovers: a clean end has none (a BMC Secret owned by its host stays)', () => {
  assert.equal(
    leftovers({
      world: world({ hosts: [host('h0')] }),
      secrets: [secret('h0-bmc', [{ kind: 'BareMetalHost', name: 'h0', uid: 'uid-h0' }]), secret('user-secret')],
      objects: [],
    }),
    [],
  );
});

test('leftovers: a claimed or owned host, an object left (with its finalizers), an orphaned or ownerless rendered Secret are each named', () => {
  const found = leftovers({
    world: world({ hosts: [host('h0', 'a'), host('h1', undefined, { ownerReferences: [{ kind: 'Metal3Machine', name: 'a' }] })] }),
    secrets: [secret('a-metadata', [{ kind: 'Metal3Data', name: 'd', uid: 'gone' }]), secret('b-networkdata')],
    objects: [
      { kind: 'Metal3Machine', name: 'a', finalizers: ['metal3machine.infrastructure.cluster.x-k8s.io'], deleting: true, owners: [] },
      { kind: 'IPClaim', name: 'c', finalizers: [], deleting: false, owners: ['Metal3Data/d'] },
    ],
  });
  assert.equal(found, [
    'host h0 still claimed by Metal3Machine/a',
    'host h1 still owned by Metal3Machine/a',
    'Metal3Machine a left behind (being deleted; finalizers metal3machine.infrastructure.cluster.x-k8s.io; no owner)',
    'IPClaim c left behind (not deleted; owners Metal3Data/d)',
    'orphaned Secret a-metadata (owners gone: Metal3Data/d)',
    'rendered Secret b-networkdata left behind without an owner',
  ]);
});

test("heldByIpam: only IPAM kinds whose every finalizer is IPAM's", () => {
  const o = (kind: string, finalizers: string[]) => ({ kind, name: 'x', finalizers, deleting: true, owners: [] });
  assert.ok(heldByIpam(o('IPClaim', ['ipclaim.ipam.metal3.io'])));
  assert.ok(heldByIpam(o('IPAddress', ['ipaddress.ipam.metal3.io'])));
  assert.not.ok(heldByIpam(o('IPClaim', ['ipclaim.ipam.metal3.io', 'metal3data.infrastructure.cluster.x-k8s.io'])), 'still held by the Metal3Data');
  assert.not.ok(heldByIpam(o('IPClaim', [])), 'no finalizer: nobody deleted it');
  assert.not.ok(heldByIpam(o('Metal3Data', ['x.ipam.metal3.io'])));
});

test.run();
