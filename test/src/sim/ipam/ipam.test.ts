// The IPAM simulator on the real apiserver: Metal3 IPClaims and Cluster API IPAddressClaims served
// from Metal3 IPPools, release on deletion, bad pools reported on the claim, pool bookkeeping.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Transport } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import {
  type IPAddress,
  IPAddressResource,
  type IPClaim,
  IPClaimResource,
  type IPPool,
  IPPoolResource,
  type IPPoolSpec,
  newIPClaim,
  newIPPool,
} from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from '../simulator.ts';
import {
  CAPI_IPADDRESS_FINALIZER,
  CAPI_IPADDRESSCLAIM_FINALIZER,
  EXHAUSTED_MESSAGE,
  IPADDRESS_FINALIZER,
  ipamSimulator,
  IPCLAIM_FINALIZER,
  IPPOOL_FINALIZER,
  PREALLOCATED_OUT_OF_BOUNDS_MESSAGE,
} from './index.ts';
import { eventuallyWith } from '../../testing/eventually.ts';

const ipam = suite('IPAM simulator on the real apiserver');
const env = withSharedEnv(ipam);

let client: Client;
let deps: SimulatorDeps;
let running: RunningSimulators;

/** Polls `probe` until it returns something other than undefined (15 s unless told). */
const eventually = eventuallyWith({ timeoutMs: 15_000 });

const gone = async (get: () => Promise<unknown>): Promise<true | undefined> => {
  try {
    await get();
    return undefined;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
};

const reconcileErrors = (): number =>
  deps.registry.counter('controller_runtime_reconcile_errors_total', '', ['controller']).get({ controller: 'sim-ipam-ippool' });

const pools = (ns: string) => client.api(IPPoolResource, ns);
const claims = (ns: string) => client.api(IPClaimResource, ns);
const addresses = (ns: string) => client.api(IPAddressResource, ns);

const createPool = (ns: string, name: string, spec: Omit<IPPoolSpec, 'namePrefix'> & { namePrefix?: string }): Promise<IPPool> =>
  pools(ns).create(newIPPool({ metadata: { name }, spec: { namePrefix: name, ...spec } }));

const createClaim = (ns: string, name: string, pool: string, extra: Partial<IPClaim['metadata']> = {}): Promise<IPClaim> =>
  claims(ns).create(newIPClaim({ metadata: { name, ...extra }, spec: { pool: { name: pool, namespace: ns } } }));

/** Waits for the claim to be answered (address or error) and returns it. */
const answered = (ns: string, name: string): Promise<IPClaim> =>
  eventually(`IPClaim ${name} answered`, async () => {
    const claim = await claims(ns).get(name);
    return claim.status?.address || claim.status?.errorMessage ? claim : undefined;
  });

const addressOf = async (ns: string, claim: string): Promise<IPAddress> => {
  const answer = await answered(ns, claim);
  assert.ok(answer.status?.address?.name, `${claim} got no address: ${answer.status?.errorMessage ?? ''}`);
  return addresses(ns).get(answer.status.address.name);
};

ipam.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  deps = simulatorDeps(env().admin);
  running = await startSimulators(deps, ipamSimulator(deps, { pausedRequeueMs: 200 }));
});

ipam.after(async () => {
  await running?.stop();
  client?.transport.close();
});

ipam('an IPClaim gets an IPAddress from its pool: name, spec, owners, finalizers, labels, claim and pool status', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  const pool = await createPool(ns, 'prov', {
    pools: [{ start: '192.168.10.10', end: '192.168.10.20' }],
    prefix: 24,
    gateway: '192.168.10.1',
    dnsServers: ['8.8.8.8'],
  });
  const claim = await createClaim(ns, 'm-0-prov', 'prov', {
    labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
    finalizers: ['metal3data.infrastructure.cluster.x-k8s.io'],
  });
  const answer = await answered(ns, 'm-0-prov');
  assert.equal(answer.status?.address, { name: 'prov-192-168-10-10', namespace: ns });
  assert.is(answer.status?.errorMessage, undefined);
  assert.equal(answer.metadata.finalizers, ['metal3data.infrastructure.cluster.x-k8s.io', IPCLAIM_FINALIZER]);

  const address = await addresses(ns).get('prov-192-168-10-10');
  assert.equal(address.spec, {
    address: '192.168.10.10',
    pool: { name: 'prov', namespace: ns },
    claim: { name: 'm-0-prov', namespace: ns },
    prefix: 24,
    gateway: '192.168.10.1',
    dnsServers: ['8.8.8.8'],
  });
  assert.equal(address.metadata.finalizers, [IPADDRESS_FINALIZER]);
  assert.equal(address.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1' });
  assert.equal(
    address.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
    [
      ['IPPool', 'prov', pool.metadata.uid, undefined],
      ['IPClaim', 'm-0-prov', claim.metadata.uid, undefined],
    ],
  );

  const updated = await eventually('pool indexes', async () => {
    const p = await pools(ns).get('prov');
    return p.status?.indexes?.['m-0-prov'] ? p : undefined;
  });
  assert.equal(updated.status?.indexes, { 'm-0-prov': '192.168.10.10' });
  assert.ok(updated.status?.lastUpdated);
  assert.equal(updated.metadata.finalizers, [IPPOOL_FINALIZER]);
});

ipam('claims get distinct addresses in order, then the next range with its own prefix, gateway and DNS servers', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'multi', {
    prefix: 24,
    gateway: '10.0.0.1',
    pools: [{ start: '10.0.0.10', end: '10.0.0.11' }, { subnet: '172.16.0.0/29', prefix: 29, gateway: '172.16.0.6', dnsServers: ['172.16.0.5'] }],
  });
  for (const n of [0, 1, 2]) {
    await createClaim(ns, `c-${n}`, 'multi');
    // One at a time, so the order of allocation is the order of creation.
    await answered(ns, `c-${n}`);
  }
  const got = await Promise.all([0, 1, 2].map((n) => addressOf(ns, `c-${n}`)));
  assert.equal(
    got.map((a) => [a.spec?.address, a.spec?.prefix, a.spec?.gateway, a.spec?.dnsServers]),
    [
      ['10.0.0.10', 24, '10.0.0.1', undefined],
      ['10.0.0.11', 24, '10.0.0.1', undefined],
      ['172.16.0.1', 29, '172.16.0.6', ['172.16.0.5']],
    ],
  );
  // Many claims at once still never share an address.
  await Promise.all([3, 4, 5, 6].map((n) => createClaim(ns, `c-${n}`, 'multi')));
  const more = await Promise.all([3, 4, 5, 6].map((n) => addressOf(ns, `c-${n}`)));
  const all = [...got, ...more].map((a) => a.spec?.address);
  assert.is(new Set(all).size, 7);
});

ipam('pre-allocations: the named claim gets its address, other claims skip it', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'pre', { pools: [{ start: '10.1.0.1', end: '10.1.0.5' }], prefix: 24, preAllocations: { special: '10.1.0.1' } });
  await createClaim(ns, 'first', 'pre');
  assert.is((await addressOf(ns, 'first')).spec?.address, '10.1.0.2');
  await createClaim(ns, 'special', 'pre');
  assert.is((await addressOf(ns, 'special')).spec?.address, '10.1.0.1');
});

ipam('deleting a claim releases its address (IPAddress deleted, finalizers removed, index freed) and the address is reused', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'rel', { pools: [{ start: '10.2.0.1', end: '10.2.0.3' }], prefix: 24 });
  await createClaim(ns, 'a', 'rel');
  const first = await addressOf(ns, 'a');
  await createClaim(ns, 'b', 'rel');
  assert.is((await addressOf(ns, 'b')).spec?.address, '10.2.0.2');

  await claims(ns).delete('a');
  await eventually('claim a gone', () => gone(() => claims(ns).get('a')));
  await eventually('its IPAddress gone', () => gone(() => addresses(ns).get(first.metadata.name ?? '')));
  await eventually('index of a freed', async () => {
    const p = await pools(ns).get('rel');
    return p.status?.indexes?.['a'] === undefined && p.status?.indexes?.['b'] === '10.2.0.2' ? true : undefined;
  });
  await createClaim(ns, 'c', 'rel');
  assert.is((await addressOf(ns, 'c')).spec?.address, '10.2.0.1');
});

ipam('a deleted claim still held by another finalizer (CAPM3) keeps its address until that finalizer goes', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'held', { pools: [{ start: '10.3.0.1', end: '10.3.0.9' }], prefix: 24 });
  await createClaim(ns, 'data-pool', 'held', { finalizers: ['metal3data.infrastructure.cluster.x-k8s.io'] });
  const address = await addressOf(ns, 'data-pool');
  await claims(ns).delete('data-pool');
  await new Promise((r) => setTimeout(r, 300));
  assert.ok((await addresses(ns).get(address.metadata.name ?? '')).spec, 'address kept while CAPM3 holds the claim');
  const claim = await claims(ns).get('data-pool');
  await claims(ns).mergePatch('data-pool', { metadata: { finalizers: (claim.metadata.finalizers ?? []).filter((f) => f === IPCLAIM_FINALIZER) } });
  await eventually('address released', () => gone(() => addresses(ns).get(address.metadata.name ?? '')));
  await eventually('claim gone', () => gone(() => claims(ns).get('data-pool')));
});

ipam('bad pools are reported on the claim, not retried in a loop: start after end, start outside subnet, exhausted, pre-allocation out of range', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  const errorsBefore = reconcileErrors();
  await createPool(ns, 'backwards', { pools: [{ start: '10.4.0.9', end: '10.4.0.1' }] });
  await createPool(ns, 'outside', { pools: [{ start: '10.9.0.1', subnet: '10.4.0.0/24' }] });
  await createPool(ns, 'tiny', { pools: [{ start: '10.5.0.1', end: '10.5.0.1' }], preAllocations: { stray: '10.6.0.1' } });
  await createClaim(ns, 'x', 'backwards');
  await createClaim(ns, 'y', 'outside');
  await createClaim(ns, 'ok', 'tiny');
  await answered(ns, 'ok');
  await createClaim(ns, 'late', 'tiny');
  await createClaim(ns, 'stray', 'tiny');
  const messages = await Promise.all(['x', 'y', 'ok', 'late', 'stray'].map(async (n) => (await answered(ns, n)).status?.errorMessage));
  assert.equal(messages, [
    `${EXHAUSTED_MESSAGE} (invalid pool: pools[0]: start 10.4.0.9 is after end 10.4.0.1)`,
    `${EXHAUSTED_MESSAGE} (invalid pool: pools[0]: start 10.9.0.1 is not in subnet 10.4.0.0/24)`,
    undefined,
    EXHAUSTED_MESSAGE,
    PREALLOCATED_OUT_OF_BOUNDS_MESSAGE,
  ]);
  // No address object was made for the failures, and the failed claims are left alone afterwards.
  assert.equal((await addresses(ns).list()).items.map((a) => a.spec?.address), ['10.5.0.1']);
  const versions = await Promise.all(['x', 'late'].map(async (n) => (await claims(ns).get(n)).metadata.resourceVersion));
  await pools(ns).mergePatch('tiny', { metadata: { annotations: { touched: 'yes' } } });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await Promise.all(['x', 'late'].map(async (n) => (await claims(ns).get(n)).metadata.resourceVersion)), versions);
  assert.is(reconcileErrors(), errorsBefore, 'no reconcile failed');
});

ipam('an IPv6 pool hands out canonical addresses and names them with dashes', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'v6', { pools: [{ subnet: 'fd00:10::/120' }], prefix: 64, gateway: 'fd00:10::ff' });
  await createClaim(ns, 'n', 'v6');
  const address = await addressOf(ns, 'n');
  assert.is(address.metadata.name, 'v6-fd00-10--1');
  assert.equal([address.spec?.address, address.spec?.prefix, address.spec?.gateway], ['fd00:10::1', 64, 'fd00:10::ff']);
});

ipam('a pool of a Cluster: labels and owner reference; nothing while the Cluster is paused, allocation after unpausing', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  const cluster = await client.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'c1' }, spec: { paused: true } }));
  await createPool(ns, 'owned', { clusterName: 'c1', pools: [{ start: '10.7.0.1', end: '10.7.0.9' }], prefix: 24 });
  const labelled = await eventually('pool labelled and owned', async () => {
    const p = await pools(ns).get('owned');
    return p.metadata.ownerReferences?.length ? p : undefined;
  });
  assert.equal(labelled.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/provider': 'ipam-metal3' });
  assert.equal(labelled.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['Cluster', 'c1', cluster.metadata.uid]]);
  await createClaim(ns, 'w', 'owned');
  await new Promise((r) => setTimeout(r, 500));
  const waiting = await claims(ns).get('w');
  assert.is(waiting.status?.address, undefined, 'no allocation while paused');
  assert.is(waiting.metadata.finalizers, undefined);
  await client.api(ClusterResource, ns).mergePatch('c1', { spec: { paused: false } });
  assert.is((await addressOf(ns, 'w')).spec?.address, '10.7.0.1');
});

ipam('a claim for a pool that does not exist waits, and is served once the pool appears', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createClaim(ns, 'early', 'later');
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await claims(ns).get('early')).status, undefined);
  await createPool(ns, 'later', { pools: [{ start: '10.8.0.1', end: '10.8.0.2' }], prefix: 24 });
  assert.is((await addressOf(ns, 'early')).spec?.address, '10.8.0.1');
});

ipam('a deleting pool keeps its finalizer while addresses are allocated and goes once they are released', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  await createPool(ns, 'doomed', { pools: [{ start: '10.9.1.1', end: '10.9.1.9' }], prefix: 24, preAllocations: { never: '10.9.1.9' } });
  await createClaim(ns, 'k', 'doomed');
  await addressOf(ns, 'k');
  await pools(ns).delete('doomed');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await pools(ns).get('doomed')).metadata.finalizers, [IPPOOL_FINALIZER]);
  await claims(ns).delete('k');
  await eventually('pool gone', () => gone(() => pools(ns).get('doomed')));
});

ipam('Cluster API IPAddressClaim against a Metal3 IPPool: CAPI IPAddress, addressRef, Ready; exhaustion; release', async () => {
  const ns = await freshNamespace(env().admin.client, 'ipam');
  const pool = await createPool(ns, 'capi', { pools: [{ start: '10.10.0.1', end: '10.10.0.2' }], prefix: 26, gateway: '10.10.0.62' });
  const capiClaims = client.api(capi.IPAddressClaimResource, ns);
  const capiAddresses = client.api(capi.IPAddressResource, ns);
  const poolRef = { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'capi' };
  const claimFor = (name: string) => capi.newIPAddressClaim({ metadata: { name, labels: { role: 'node' } }, spec: { poolRef } });
  // A Metal3 claim shares the pool: the two flavours never get the same address.
  await createClaim(ns, 'metal3', 'capi');
  await answered(ns, 'metal3');
  const created = await capiClaims.create(claimFor('one'));
  const ready = await eventually('CAPI claim ready', async () => {
    const c = await capiClaims.get('one');
    return c.status?.addressRef?.name ? c : undefined;
  });
  assert.is(ready.status?.addressRef?.name, 'capi-10-10-0-2');
  assert.equal(ready.status?.conditions?.map((c) => [c.type, c.status]), [['Ready', 'True']]);
  assert.equal(ready.metadata.finalizers, [CAPI_IPADDRESSCLAIM_FINALIZER]);
  const address = await capiAddresses.get('capi-10-10-0-2');
  assert.equal(address.spec, { address: '10.10.0.2', prefix: 26, gateway: '10.10.0.62', poolRef, claimRef: { name: 'one' } });
  assert.equal(address.metadata.finalizers, [CAPI_IPADDRESS_FINALIZER]);
  assert.equal(address.metadata.labels, { role: 'node' });
  assert.equal(
    address.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
    [
      ['IPPool', 'capi', pool.metadata.uid],
      ['IPAddressClaim', 'one', created.metadata.uid],
    ],
  );
  assert.is((await pools(ns).get('capi')).status?.indexes?.['one'], '10.10.0.2');

  await capiClaims.create(claimFor('two'));
  const exhausted = await eventually('CAPI claim refused', async () => {
    const c = await capiClaims.get('two');
    return c.status?.conditions?.length ? c : undefined;
  });
  assert.equal(exhausted.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.severity, c.message]), [
    ['Ready', 'False', 'PoolExhausted', 'Error', EXHAUSTED_MESSAGE],
  ]);
  assert.is(exhausted.status?.addressRef?.name, undefined);

  await capiClaims.delete('one');
  await eventually('CAPI address released', () => gone(() => capiAddresses.get('capi-10-10-0-2')));
  await eventually('CAPI claim gone', () => gone(() => capiClaims.get('one')));
  await eventually('index freed', async () => ((await pools(ns).get('capi')).status?.indexes?.['one'] === undefined ? true : undefined));
});

ipam.run();
