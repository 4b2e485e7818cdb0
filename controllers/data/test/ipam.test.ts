// The Metal3Data controller and IP address management on the real apiserver: Metal3 IPClaims served
// by the IPAM simulator, Cluster API IPAddressClaims answered by the test, preallocation, allocation
// failures, claims of a former Metal3Data, and release on deletion (annotation-named pools included,
// E-18). The controllers run as a user bound to exactly deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource, Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import * as capi from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { IPAddressResource, IPClaimResource, newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import type { DataControllersConfig } from '../src/controller.ts';
import {
  createPool,
  createScene,
  DATA,
  dataSuite,
  dataWhen,
  eventsFor,
  eventually,
  gone,
  HOST,
  M3M,
  type RunningControllers,
  secretText,
  settled,
  startDataControllers,
  when,
} from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data IP claims on the real apiserver', {
  errorsMessage: 'no reconcile failed: findings are status, not errors',
  ipam: true,
});

const FINALIZER = 'metal3data.infrastructure.cluster.x-k8s.io';

let controllers: RunningControllers | undefined;

async function setup(prefix: string, config: DataControllersConfig = {}): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controllers = track(await startDataControllers(env(), ns, config));
  return ns;
}

const POOL_V4 = { pools: [{ start: '192.168.0.10', end: '192.168.0.20' }], prefix: 24, gateway: '192.168.0.1', dnsServers: ['8.8.8.8'] };

/** Metadata from pool-v4, a static network from pool-v4 and one from the pool an annotation on the host names. */
const IPAM_TEMPLATE = {
  metaData: {
    ipAddressesFromIPPool: [{ key: 'address', name: 'pool-v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
    prefixesFromIPPool: [{ key: 'prefix', name: 'pool-v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
    gatewaysFromIPPool: [{ key: 'gateway', name: 'pool-v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }],
  },
  networkData: {
    links: { ethernets: [{ type: 'phy' as const, id: 'eth0', mtu: 1500, macAddress: { fromHostInterface: 'eth0' } }] },
    networks: {
      ipv4: [
        {
          id: 'provisioning',
          link: 'eth0',
          ipAddressFromIPPool: 'pool-v4',
          routes: [{ network: '0.0.0.0', prefix: 0, gateway: { fromIPPool: 'pool-v4' }, services: { dnsFromIPPool: 'pool-v4' } }],
        },
      ],
    },
    services: { dnsFromIPPool: 'pool-v4' },
  },
};

const ANNOTATED_NETWORK = {
  id: 'storage',
  link: 'eth0',
  fromPoolAnnotation: { object: 'baremetalhost' as const, annotation: 'ippool.metal3.io/storage' },
  routes: [],
};
const withAnnotatedPool = {
  ...IPAM_TEMPLATE,
  networkData: { ...IPAM_TEMPLATE.networkData, networks: { ipv4: [...IPAM_TEMPLATE.networkData.networks.ipv4, ANNOTATED_NETWORK] } },
};

test("D-14/D-16/D-19/§0.1: an IPClaim <data>-<pool> (our finalizer, controller reference, the Metal3Data's labels) whose address the IPAM gives feeds both Secrets", async () => {
  const ns = await setup('m3d-ipclaim');
  await createPool(admin(), ns, 'pool-v4', POOL_V4);
  const scene = await createScene(admin(), ns, { template: IPAM_TEMPLATE });
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  const claim = await admin().api(IPClaimResource, ns).get(`${DATA}-pool-v4`);
  assert.ok(claim.metadata.finalizers?.includes(FINALIZER), 'the "data" finalizer on the IPClaim it made');
  assert.equal(claim.metadata.ownerReferences, [
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: DATA, uid: scene.data!.metadata.uid!, controller: true },
  ]);
  assert.equal(claim.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'cluster1' });
  assert.equal(claim.spec?.pool, { name: 'pool-v4', namespace: ns });
  assert.is(
    await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'),
    `address: 192.168.0.10\ngateway: 192.168.0.1\nprefix: "24"\nproviderid: ${ns}/${HOST}/${M3M}\n`,
  );
  const network = await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData');
  assert.ok(network?.includes('ip_address: 192.168.0.10\n  link: eth0\n  netmask: 255.255.255.0'), network);
  assert.ok(network?.includes('ethernet_mac_address: "00:11:22:33:44:55"'), 'DR-14: the MAC of the host NIC, double-quoted (DR-23)');
  assert.ok(network?.endsWith('services:\n- address: 8.8.8.8\n  type: dns\n'), network);
});

test('D-7/D-20/E-18 (fixed): deletion waits for the claim, then releases every IP claim, annotation-named pools included, and lets go', async () => {
  const ns = await setup('m3d-release');
  await createPool(admin(), ns, 'pool-v4', POOL_V4);
  await createPool(admin(), ns, 'pool-storage', { pools: [{ subnet: '10.10.0.0/24' }], prefix: 24 });
  await createScene(admin(), ns, { template: withAnnotatedPool, hostAnnotations: { 'ippool.metal3.io/storage': 'pool-storage' } });
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  const claimNames = (await admin().api(IPClaimResource, ns).list()).items.map((c) => c.metadata.name).sort();
  assert.equal(claimNames, [`${DATA}-pool-storage`, `${DATA}-pool-v4`]);
  assert.ok((await secretText(admin(), ns, `${M3M}-networkdata`, 'networkData'))?.includes('ip_address: 10.10.0.1'), 'the annotation-named pool is rendered');

  const before = controllers!.reconciles();
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await settled(controllers!, before);
  const waiting = await admin().api(Metal3DataResource, ns).get(DATA);
  assert.ok(waiting.metadata.finalizers?.includes(FINALIZER), 'D-7: held while its Metal3DataClaim exists');
  assert.is((await admin().api(IPClaimResource, ns).list()).items.length, 2, 'nothing released yet');

  await admin().api(Metal3DataClaimResource, ns).delete(M3M);
  await gone(admin(), Metal3DataResource, ns, DATA);
  await gone(admin(), IPClaimResource, ns, `${DATA}-pool-v4`);
  await gone(admin(), IPClaimResource, ns, `${DATA}-pool-storage`);
  await eventually('addresses freed', async () => ((await admin().api(IPAddressResource, ns).list()).items.length === 0 ? true : undefined));
  assert.equal((await eventsFor(admin(), ns, DATA, 'IPClaimsReleased')).map((e) => e.message), [`Released IP claims ${DATA}-pool-storage, ${DATA}-pool-v4`]);
});

test('D-17/E-17 (fixed): with BMH-name-based preallocation the IPClaim is <host>-<pool>, labelled, takes the preallocated address in one pass, and is released', async () => {
  const ns = await setup('m3d-prealloc', { preallocation: true });
  await createPool(admin(), ns, 'pool-v4', { ...POOL_V4, preAllocations: { [`${HOST}-pool-v4`]: '192.168.0.15' } });
  await createScene(admin(), ns, { template: IPAM_TEMPLATE });
  const data = await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  assert.is(data.metadata.labels?.['infrastructure.cluster.x-k8s.io/data-name'], undefined, 'D-17 (changed): the Metal3Data keeps its own labels');
  const claim = await admin().api(IPClaimResource, ns).get(`${HOST}-pool-v4`);
  assert.is(claim.metadata.labels?.['infrastructure.cluster.x-k8s.io/data-name'], DATA);
  assert.is(claim.metadata.labels?.['infrastructure.cluster.x-k8s.io/pool-name'], 'pool-v4');
  assert.ok((await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'))?.startsWith('address: 192.168.0.15\n'));
  assert.is((await eventsFor(admin(), ns, DATA, 'RenderingFailed')).length, 0, 'E-17: no failed pass on the way');

  await admin().api(Metal3DataClaimResource, ns).delete(M3M);
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await gone(admin(), Metal3DataResource, ns, DATA);
  await gone(admin(), IPClaimResource, ns, `${HOST}-pool-v4`);
});

test('D-19: a pool that cannot serve the claim puts "IP Allocation for <pool> failed : …" in errorMessage with a Warning event; no Secret is written', async () => {
  const ns = await setup('m3d-ipfail');
  await createPool(admin(), ns, 'pool-v4', { pools: [{ start: '192.168.0.20', end: '192.168.0.10' }], prefix: 24 });
  await createScene(admin(), ns, { template: IPAM_TEMPLATE });
  const data = await dataWhen(admin(), ns, DATA, 'errorMessage', (d) => d.status?.errorMessage !== undefined);
  assert.match(data.status!.errorMessage!, /^IP Allocation for pool-v4 failed : /);
  assert.is(data.status?.ready, undefined);
  const events = await eventually('Warning event', async () => {
    const found = await eventsFor(admin(), ns, DATA, 'IPAllocationFailed');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');
  assert.is(controllers!.writes('secrets'), 0, 'nothing half-written');
});

test('D-14/D-19 (changed, issue 21): a pool that does not exist is named in errorMessage with a Warning event; its creation renders at once', async () => {
  const ns = await setup('m3d-nopool');
  await createScene(admin(), ns, { template: IPAM_TEMPLATE });
  const data = await dataWhen(admin(), ns, DATA, 'the missing pool reported', (d) => d.status?.errorMessage !== undefined);
  assert.is(
    data.status?.errorMessage,
    `IP Allocation for pool-v4 waits: IPPool ${ns}/pool-v4 does not exist; its IP claim is kept and served once the pool is created`,
  );
  assert.is(data.status?.ready, undefined);
  const events = await eventually('Warning event', async () => {
    const found = await eventsFor(admin(), ns, DATA, 'IPPoolNotFound');
    return found.length > 0 ? found : undefined;
  });
  assert.is(events[0]?.type, 'Warning');
  assert.ok(await admin().api(IPClaimResource, ns).get(`${DATA}-pool-v4`), 'the claim is made all the same, for the IPAM to serve later');

  const start = performance.now();
  await createPool(admin(), ns, 'pool-v4', POOL_V4);
  const ready = await dataWhen(admin(), ns, DATA, 'ready once the pool exists', (d) => d.status?.ready === true, 5_000);
  assert.ok(performance.now() - start < 5_000, 'woken by events, not by the 120 s safety net');
  assert.is(ready.status?.errorMessage, undefined, 'the message is cleared');
  assert.ok((await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'))?.startsWith('address: 192.168.0.10\n'));
});

test("D-18/D-19: a pool of another kind gets a Cluster API IPAddressClaim; its provider's answer is rendered and the claim released on deletion", async () => {
  const ns = await setup('m3d-capi');
  const poolRef = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool', name: 'cpool' };
  await createScene(admin(), ns, {
    template: { metaData: { ipAddressesFromIPPool: [{ key: 'caddr', ...poolRef }], prefixesFromIPPool: [{ key: 'cprefix', ...poolRef }] } },
  });
  const claims = admin().api(capi.IPAddressClaimResource, ns);
  const claim = await when(admin(), capi.IPAddressClaimResource, ns, `${DATA}-cpool`, 'IPAddressClaim', () => true);
  assert.equal(claim.spec?.poolRef, poolRef);
  assert.ok(claim.metadata.finalizers?.includes(FINALIZER));
  assert.is(claim.metadata.ownerReferences?.[0]?.kind, 'Metal3Data');
  // The test plays the Cluster API IPAM provider.
  await admin().api(capi.IPAddressResource, ns).create(
    capi.newIPAddress({
      metadata: { name: 'cpool-10-0-0-5' },
      spec: { address: '10.0.0.5', prefix: 16, gateway: '10.0.0.1', poolRef, claimRef: { name: `${DATA}-cpool` } },
    }),
  );
  await claims.mergePatchStatus(`${DATA}-cpool`, { status: { addressRef: { name: 'cpool-10-0-0-5' } } });
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true, 5_000);
  assert.is(await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'), `caddr: 10.0.0.5\ncprefix: "16"\nproviderid: ${ns}/${HOST}/${M3M}\n`);

  await admin().api(Metal3DataClaimResource, ns).delete(M3M);
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await gone(admin(), Metal3DataResource, ns, DATA);
  await gone(admin(), capi.IPAddressClaimResource, ns, `${DATA}-cpool`);
});

test('D-19: a leftover IPClaim of a former Metal3Data of the same name is waited out; its deletion, held by our finalizer, is let go and a fresh claim made', async () => {
  const ns = await setup('m3d-foreign');
  await createPool(admin(), ns, 'pool-v4', POOL_V4);
  const old = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Data',
    name: DATA,
    uid: '00000000-0000-0000-0000-00000000000a',
    controller: true,
  };
  await admin().api(IPClaimResource, ns).create(
    newIPClaim({ metadata: { name: `${DATA}-pool-v4`, finalizers: [FINALIZER], ownerReferences: [old] }, spec: { pool: { name: 'pool-v4', namespace: ns } } }),
  );
  const scene = await createScene(admin(), ns, { template: IPAM_TEMPLATE });
  await settled(controllers!, 0);
  let data = await admin().api(Metal3DataResource, ns).get(DATA);
  assert.is(data.status?.ready, undefined, 'waits: the claim is not ours');
  await admin().api(IPClaimResource, ns).delete(`${DATA}-pool-v4`);
  data = await dataWhen(admin(), ns, DATA, 'ready with a claim of its own', (d) => d.status?.ready === true);
  const claim = await admin().api(IPClaimResource, ns).get(`${DATA}-pool-v4`);
  assert.is(claim.metadata.ownerReferences?.[0]?.uid, scene.data!.metadata.uid);
  assert.equal(claim.status?.address?.name, 'pool-v4-192-168-0-10', 'the freed address, served again');
  assert.ok((await secretText(admin(), ns, `${M3M}-metadata`, 'metaData'))?.startsWith('address: 192.168.0.10\n'));
});

test.run();
