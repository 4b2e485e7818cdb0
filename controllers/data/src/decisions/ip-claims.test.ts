// D-15…D-19, E-17, E-46: the IP claims of a Metal3Data and what an existing one says.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type IPAddressClaim, newIPAddress as newCapiIPAddress, newIPAddressClaim } from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { type IPClaim, newIPAddress, newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { PoolRef } from '../render/index.ts';
import { DATA_NAME_LABEL, METAL3_DATA_FINALIZER, POOL_NAME_LABEL } from '../names.ts';
import { data, DATA_UID, NS } from '../testing.ts';
import { capiClaimState, claimNameProblem, claimNames, isOwnedBy, metal3ClaimState, newCapiIPAddressClaim, newMetal3IPClaim } from './ip-claims.ts';

const test = suite('IP claims');

const metal3Pool: PoolRef = { name: 'pool-a', apiGroup: 'ipam.metal3.io', kind: 'IPPool' };
const capiPool: PoolRef = { name: 'pool-c', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' };
const ours = [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'tmpl-0', uid: DATA_UID, controller: true }];
const theirs = [{ ...ours[0]!, uid: 'old-uid' }];

test('D-16/D-18: names are <data>-<pool>; Metal3 pools also look for <host>-<pool>', () => {
  assert.equal(claimNames('tmpl-0', metal3Pool, 'host', false), { lookup: ['tmpl-0-pool-a', 'host-pool-a'], create: 'tmpl-0-pool-a' });
  assert.equal(claimNames('tmpl-0', capiPool, 'host', false), { lookup: ['tmpl-0-pool-c'], create: 'tmpl-0-pool-c' });
});

test('D-17: with preallocation a Metal3 claim is created as <host>-<pool>; Cluster API claims are not affected', () => {
  assert.equal(claimNames('tmpl-0', metal3Pool, 'host', true), { lookup: ['tmpl-0-pool-a', 'host-pool-a'], create: 'host-pool-a' });
  assert.equal(claimNames('tmpl-0', capiPool, 'host', true), { lookup: ['tmpl-0-pool-c'], create: 'tmpl-0-pool-c' });
});

test("D-16: a new IPClaim: pool in the namespace, our finalizer, the Metal3Data's labels and controller reference", () => {
  const claim = newMetal3IPClaim(data(), metal3Pool, 'tmpl-0-pool-a', false);
  assert.equal(claim.metadata, {
    name: 'tmpl-0-pool-a',
    namespace: NS,
    finalizers: [METAL3_DATA_FINALIZER],
    labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
    ownerReferences: ours,
  });
  assert.equal(claim.spec, { pool: { name: 'pool-a', namespace: NS } });
  assert.is(claim.apiVersion, 'ipam.metal3.io/v1alpha1');
});

test('D-17: a preallocated IPClaim carries the data-name and pool-name labels', () => {
  const claim = newMetal3IPClaim(data(), metal3Pool, 'host-pool-a', true);
  assert.equal(claim.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1', [DATA_NAME_LABEL]: 'tmpl-0', [POOL_NAME_LABEL]: 'pool-a' });
});

test('D-18: a new IPAddressClaim names the pool by group, kind and name', () => {
  const claim = newCapiIPAddressClaim(data(), capiPool, 'tmpl-0-pool-c');
  assert.equal(claim.spec, { poolRef: { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'pool-c' } });
  assert.equal(claim.metadata.finalizers, [METAL3_DATA_FINALIZER]);
  assert.equal(claim.metadata.ownerReferences, ours);
});

const ipClaim = (patch: (c: IPClaim) => void = () => {}): IPClaim => {
  const c = newIPClaim({
    metadata: { name: 'tmpl-0-pool-a', namespace: NS, ownerReferences: ours, finalizers: [METAL3_DATA_FINALIZER] },
    spec: { pool: { name: 'pool-a' } },
  });
  patch(c);
  return c;
};
const address = newIPAddress({
  metadata: { name: 'pool-a-192-168-0-10', namespace: NS },
  spec: { address: '192.168.0.10', prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'], pool: { name: 'pool-a' }, claim: { name: 'tmpl-0-pool-a' } },
});
const allocated = (c: IPClaim) => (c.status = { address: { name: 'pool-a-192-168-0-10', namespace: NS } });

test('D-19: an answered IPClaim yields address, prefix, gateway and DNS servers', () => {
  assert.equal(metal3ClaimState(data(), metal3Pool, ipClaim(allocated), address), {
    kind: 'Allocated',
    allocation: { address: '192.168.0.10', prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'] },
  });
});

test('D-19: no address yet, or the IPAddress not yet seen, is a wait', () => {
  assert.is(metal3ClaimState(data(), metal3Pool, ipClaim(), undefined).kind, 'Wait');
  assert.is(metal3ClaimState(data(), metal3Pool, ipClaim(allocated), undefined).kind, 'Wait');
});

test('D-19: an IPClaim error is a failure naming the pool', () => {
  const state = metal3ClaimState(data(), metal3Pool, ipClaim((c) => (c.status = { errorMessage: 'Exhausted IP Pools' })), undefined);
  assert.equal(state, { kind: 'Failed', message: 'IP Allocation for pool-a failed : Exhausted IP Pools' });
});

test('D-19: a claim of another Metal3Data is waited out; once it is deleting, our finalizer comes off it', () => {
  const live = metal3ClaimState(data(), metal3Pool, ipClaim((c) => (c.metadata.ownerReferences = theirs)), address);
  assert.is(live.kind, 'Foreign');
  assert.is(live.kind === 'Foreign' && live.releaseOurFinalizer, false);
  const going = metal3ClaimState(
    data(),
    metal3Pool,
    ipClaim((c) => ((c.metadata.ownerReferences = theirs), (c.metadata.deletionTimestamp = '2025-01-01T00:00:00Z'))),
    address,
  );
  assert.is(going.kind === 'Foreign' && going.releaseOurFinalizer, true);
});

test('D-19: our own claim being deleted is still used', () => {
  const state = metal3ClaimState(data(), metal3Pool, ipClaim((c) => (allocated(c), (c.metadata.deletionTimestamp = '2025-01-01T00:00:00Z'))), address);
  assert.is(state.kind, 'Allocated');
});

test('isOwnedBy compares uids, not names', () => {
  assert.ok(isOwnedBy(ipClaim(), data()));
  assert.not.ok(isOwnedBy(ipClaim((c) => (c.metadata.ownerReferences = theirs)), data()));
});

const capiClaim = (patch: (c: IPAddressClaim) => void = () => {}): IPAddressClaim => {
  const c = newIPAddressClaim({
    metadata: { name: 'tmpl-0-pool-c', namespace: NS, ownerReferences: ours },
    spec: { poolRef: { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'pool-c' } },
  });
  patch(c);
  return c;
};
const capiAddress = newCapiIPAddress({
  metadata: { name: 'addr-c', namespace: NS },
  spec: {
    address: '10.0.0.5',
    prefix: 16,
    gateway: '10.0.0.1',
    poolRef: { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'pool-c' },
    claimRef: { name: 'tmpl-0-pool-c' },
  },
});

test('D-19: an answered IPAddressClaim yields address, prefix and gateway, no DNS', () => {
  assert.equal(capiClaimState(data(), capiPool, capiClaim((c) => (c.status = { addressRef: { name: 'addr-c' } })), capiAddress), {
    kind: 'Allocated',
    allocation: { address: '10.0.0.5', prefix: 16, gateway: '10.0.0.1', dnsServers: [] },
  });
});

test('D-19: an IPAddressClaim without addressRef, being deleted, or whose address is not seen yet is a wait', () => {
  assert.is(capiClaimState(data(), capiPool, capiClaim(), undefined).kind, 'Wait');
  assert.is(capiClaimState(data(), capiPool, capiClaim((c) => (c.status = { addressRef: { name: 'addr-c' } })), undefined).kind, 'Wait');
  assert.is(
    capiClaimState(data(), capiPool, capiClaim((c) => ((c.status = { addressRef: { name: 'addr-c' } }), (c.metadata.deletionTimestamp = 'x'))), capiAddress)
      .kind,
    'Wait',
  );
});

test('D-19 (changed): a Ready=False condition with a failed allocation is a failure, not an endless wait', () => {
  const failedClaim = capiClaim((
    c,
  ) => (c.status = {
    conditions: [{ type: 'Ready', status: 'False', reason: 'PoolExhausted', message: 'no addresses left', lastTransitionTime: '2025-01-01T00:00:00Z' }],
  }));
  assert.equal(capiClaimState(data(), capiPool, failedClaim, undefined), { kind: 'Failed', message: 'IP Allocation for pool-c failed : no addresses left' });
});

test('E-46 (fixed): an address without a prefix is waited out', () => {
  const noPrefix = { ...capiAddress, spec: { ...capiAddress.spec!, prefix: undefined as unknown as number } };
  assert.is(capiClaimState(data(), capiPool, capiClaim((c) => (c.status = { addressRef: { name: 'addr-c' } })), noPrefix).kind, 'Wait');
});

test('issue 21 point 4: a claim name over 253 characters is a clear failure naming the pool, before anything is created', () => {
  const data = 'd'.repeat(250);
  assert.is(claimNameProblem(claimNames('t'.repeat(246), metal3Pool, 'host', false), metal3Pool), undefined, '246 + "-pool-a" is 253');
  const long = claimNameProblem(claimNames(data, metal3Pool, 'host', false), metal3Pool) ?? '';
  assert.match(long, /^IP Allocation for pool-a failed : the claim name "d{40}…" would be 257 characters, more than 253; shorten/);
  assert.is(claimNameProblem(claimNames(data, metal3Pool, 'host', true), metal3Pool), undefined, 'with preallocation the claim is named after the host');
});

test.run();
