// D-2/D-3, D-14, D-19: claims read from the stores; a kind the apiserver does not serve, or a Metal3
// pool that does not exist (issue 21 point 4), is reported.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { newIPAddress, newIPClaim, newIPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import { METAL3_DATA_FINALIZER } from '../names.ts';
import { data, DATA_UID, NS } from '../testing.ts';
import { allocateAddresses } from './allocate.ts';

const test = suite('IP address allocation');

/** Every request fails the test: these cases must be answered from the stores. */
const noClient = new Proxy({}, { get: () => () => assert.unreachable('no request expected') }) as unknown as Client;
const metal3Pool = { name: 'pool-a', apiGroup: 'ipam.metal3.io', kind: 'IPPool' };
const capiPool = { name: 'pool-c', apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' };

test('D-2/D-3 (changed): a pool whose IPAM kind is not served is reported, not retried', async () => {
  const step = await allocateAddresses({ client: noClient, stores: {}, preallocation: false }, data(), [capiPool], 'host');
  assert.equal(step, {
    kind: 'Invalid',
    cause: 'IPAllocationFailed',
    message: 'IP Allocation for pool-c failed : the apiserver does not serve ipam.cluster.x-k8s.io/v1beta1 IPAddressClaim (is the IPAM CRD installed?)',
  });
});

test('D-14/D-19: existing claims answered by the IPAM give every pool its allocation; one still waiting makes it a wait', async () => {
  const owner = [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'tmpl-0', uid: DATA_UID, controller: true }];
  const claims = new ObjectStore<ReturnType<typeof newIPClaim>>();
  claims.apply(
    newIPClaim({
      metadata: { name: 'tmpl-0-pool-a', namespace: NS, ownerReferences: owner, finalizers: [METAL3_DATA_FINALIZER] },
      spec: { pool: { name: 'pool-a' } },
      status: { address: { name: 'a-1' } },
    }),
  );
  claims.apply(newIPClaim({ metadata: { name: 'host-pool-b', namespace: NS, ownerReferences: owner }, spec: { pool: { name: 'pool-b' } } }));
  const addresses = new ObjectStore<ReturnType<typeof newIPAddress>>();
  addresses.apply(
    newIPAddress({
      metadata: { name: 'a-1', namespace: NS },
      spec: { address: '10.0.0.1', prefix: 24, pool: { name: 'pool-a' }, claim: { name: 'tmpl-0-pool-a' } },
    }),
  );
  const deps = { client: noClient, stores: { ipClaims: claims, ipAddresses: addresses }, preallocation: false };
  const one = await allocateAddresses(deps, data(), [metal3Pool], 'host');
  assert.equal(one, { kind: 'Found', value: new Map([['pool-a', { address: '10.0.0.1', prefix: 24, gateway: '', dnsServers: [] }]]) });
  const two = await allocateAddresses(deps, data(), [metal3Pool, { ...metal3Pool, name: 'pool-b' }], 'host');
  assert.equal(two, { kind: 'Wait', reason: 'Waiting for an IP address from pool pool-b' }, 'D-16: the <host>-<pool> claim is found too');

  // Issue 21 point 4: with the pools known, a waiting claim of a pool that does not exist is reported.
  const pools = new ObjectStore<ReturnType<typeof newIPPool>>();
  pools.apply(newIPPool({ metadata: { name: 'pool-a', namespace: NS }, spec: { namePrefix: 'a' } }));
  const missing = await allocateAddresses(
    { ...deps, stores: { ...deps.stores, ipPools: pools } },
    data(),
    [metal3Pool, { ...metal3Pool, name: 'pool-b' }],
    'host',
  );
  assert.equal(missing, {
    kind: 'Invalid',
    cause: 'IPPoolNotFound',
    message: 'IP Allocation for pool-b waits: IPPool ns/pool-b does not exist; its IP claim is kept and served once the pool is created',
  });
  pools.apply(newIPPool({ metadata: { name: 'pool-b', namespace: NS }, spec: { namePrefix: 'b' } }));
  const back = await allocateAddresses(
    { ...deps, stores: { ...deps.stores, ipPools: pools } },
    data(),
    [metal3Pool, { ...metal3Pool, name: 'pool-b' }],
    'host',
  );
  assert.is(back.kind, 'Wait', 'the pool exists: a plain wait for its answer');
});

test.run();
