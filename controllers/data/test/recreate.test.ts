// Issue 21 point 0 on the real apiserver, with the IPAM simulator (and, where the test says so, the
// garbage collector): a Metal3Data re-created under the same name while its predecessor's rendered
// Secrets still exist waits for the garbage collector to delete them (the controller may not delete
// Secrets), then gets its own IP claim, its own address and its own Secrets, and no address is held
// by two claims; a rendered Secret that is deleted is rendered again by the watch. The controllers
// run as a user bound to exactly deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import {
  type Metal3Data,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3MachineResource,
  newMetal3DataClaim,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPAddressResource, IPClaimResource, newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { garbageCollector } from '@metal3-ts/test/sim/gc/index';
import { type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/index';
import { createData, createPool, createScene, DATA, dataSuite, dataWhen, gone, M3M, secretText, startDataControllers, when } from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data re-created under the same name (issue 21 point 0)', {
  errorsMessage: 'no reconcile failed',
  ipam: true,
});

let gc: RunningSimulators | undefined;

test.after.each(async () => {
  await gc?.stop();
  gc = undefined;
});

async function setup(prefix: string, withGc: boolean): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  track(await startDataControllers(env(), ns));
  if (withGc) {
    const deps = simulatorDeps(env().admin);
    gc = await startSimulators(deps, garbageCollector(deps, { dependents: [SecretResource], namespace: ns, intervalMs: 300 }));
  }
  return ns;
}

const POOL = { pools: [{ start: '192.168.0.10', end: '192.168.0.20' }], prefix: 24, gateway: '192.168.0.1' };
const TEMPLATE = {
  metaData: { ipAddressesFromIPPool: [{ key: 'address', name: 'pool-v4', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }] },
  networkData: { links: { ethernets: [{ type: 'phy' as const, id: 'eth0', mtu: 1500, macAddress: { string: '12:34:56:78:9A:BC' } }] } },
};
const SECRETS = [`${M3M}-metadata`, `${M3M}-networkdata`];

const addressOf = (metaData: string | undefined) => /^address: (\S+)$/m.exec(metaData ?? '')?.[1];

/** Every IPAddress of the namespace names a distinct address and a distinct claim. */
async function noAddressTwice(ns: string): Promise<Map<string, string>> {
  const addresses = (await admin().api(IPAddressResource, ns).list()).items;
  const byClaim = new Map(addresses.map((a) => [a.spec?.claim?.name ?? '', a.spec?.address ?? '']));
  assert.is(new Set(addresses.map((a) => a.spec?.address)).size, addresses.length, 'no address allocated twice');
  assert.is(byClaim.size, addresses.length, 'no claim holds two addresses');
  return byClaim;
}

/** The old Metal3Data goes as the allocation side makes it go: its claim deleted, then itself. */
async function deleteData(ns: string): Promise<void> {
  await admin().api(Metal3DataClaimResource, ns).delete(M3M);
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await gone(admin(), Metal3DataResource, ns, DATA);
  await gone(admin(), IPClaimResource, ns, `${DATA}-pool-v4`);
}

/** The claim and Metal3Data again, same names, new uids (what a re-created Metal3Machine brings). */
async function recreate(ns: string): Promise<Metal3Data> {
  const m3m = await admin().api(Metal3MachineResource, ns).get(M3M);
  const claim = await admin().api(Metal3DataClaimResource, ns).create(
    newMetal3DataClaim({
      metadata: {
        name: M3M,
        labels: { 'cluster.x-k8s.io/cluster-name': 'cluster1' },
        ownerReferences: [{ apiVersion: m3m.apiVersion, kind: m3m.kind, name: M3M, uid: m3m.metadata.uid!, controller: true }],
      },
      spec: { template: { name: 'tmpl', namespace: ns } },
    }),
  );
  return createData(admin(), ns, claim, m3m);
}

/** Another machine's IP claim from the same pool; its address. */
async function otherMachineClaim(ns: string): Promise<string> {
  await admin().api(IPClaimResource, ns).create(newIPClaim({ metadata: { name: 'm-other-pool-v4' }, spec: { pool: { name: 'pool-v4', namespace: ns } } }));
  const other = await when(admin(), IPClaimResource, ns, 'm-other-pool-v4', 'served', (c) => c.status?.address?.name !== undefined);
  return (await admin().api(IPAddressResource, ns).get(other.status!.address!.name!)).spec!.address;
}

/** The new Metal3Data ends with its own claim, its own address in its own Secrets, and nobody else's. */
async function assertOwnEverything(ns: string, data: Metal3Data, otherAddress: string): Promise<void> {
  const uid = data.metadata.uid!;
  const ready = await dataWhen(admin(), ns, DATA, 'the new Metal3Data ready', (d) => d.status?.ready === true);
  assert.is(ready.metadata.uid, uid);
  const claim = await when(admin(), IPClaimResource, ns, `${DATA}-pool-v4`, 'its own IP claim, served', (c) => c.status?.address?.name !== undefined);
  assert.is(claim.metadata.ownerReferences?.[0]?.uid, uid, "the IP claim is the new Metal3Data's");
  const byClaim = await noAddressTwice(ns);
  const own = byClaim.get(`${DATA}-pool-v4`);
  assert.ok(own && own !== otherAddress, `its own address (${own}), not the one another machine now holds (${otherAddress})`);
  for (const name of SECRETS) {
    const secret = await admin().api(SecretResource, ns).get(name);
    assert.is(secret.metadata.ownerReferences?.[0]?.uid, uid, `${name} is controlled by the new Metal3Data`);
  }
  assert.is(addressOf(await secretText(admin(), ns, SECRETS[0]!, 'metaData')), own, 'the metadata holds the new allocation');
}

for (const withGc of [false, true]) {
  const how = withGc ? 'immediately, racing the garbage collector' : 'while the old Secrets still exist (waits; the test plays the collector)';
  test(`D-9/D-12/D-19 (changed, issue 21): re-created under the same name ${how}: its own IP claim, address and Secrets; no address twice`, async () => {
    const ns = await setup(withGc ? 'm3d-again-gc' : 'm3d-again', withGc);
    await createPool(admin(), ns, 'pool-v4', POOL);
    const first = (await createScene(admin(), ns, { template: TEMPLATE })).data!;
    await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
    const oldAddress = addressOf(await secretText(admin(), ns, SECRETS[0]!, 'metaData'));
    assert.is(oldAddress, '192.168.0.10');

    await deleteData(ns);
    let data: Metal3Data;
    let otherAddress: string;
    if (withGc) {
      // At once, before the collector's next sweep; then another machine asks the pool too.
      data = await recreate(ns);
      otherAddress = await otherMachineClaim(ns);
    } else {
      // Another machine's claim takes the address just freed, as IPAM hands out the lowest free one.
      otherAddress = await otherMachineClaim(ns);
      assert.is(otherAddress, oldAddress, 'the freed address went to the other machine');
      const left = await admin().api(SecretResource, ns).get(SECRETS[0]!);
      assert.is(left.metadata.ownerReferences?.[0]?.uid, first.metadata.uid, "the predecessor's Secret is still there");
      data = await recreate(ns);
      // Its first full pass names its Secrets in the spec and finds the predecessor's in the way.
      const waiting = await dataWhen(
        admin(),
        ns,
        DATA,
        'its Secrets named',
        (d) => d.metadata.uid === data.metadata.uid && d.spec?.metaData?.name === SECRETS[0],
      );
      assert.is.not(waiting.status?.ready, true, "not Ready on the predecessor's Secrets");
      assert.is(waiting.status?.errorMessage, undefined, 'waiting is no error');
      assert.is(
        (await admin().api(IPClaimResource, ns).list()).items.some((c) => c.metadata.name === `${DATA}-pool-v4`),
        false,
        'nothing allocated while it waits',
      );
      for (const name of SECRETS) {
        const left = await admin().api(SecretResource, ns).get(name);
        assert.is(left.metadata.ownerReferences?.[0]?.uid, first.metadata.uid, `${name} untouched by the controller`);
        // What the garbage collector does to a dependent whose controller is gone.
        await admin().api(SecretResource, ns).delete(name, { preconditions: { uid: left.metadata.uid! } });
      }
    }
    assert.is.not(data.metadata.uid, first.metadata.uid);
    await assertOwnEverything(ns, data, otherAddress);
    if (withGc) {
      // The collector keeps sweeping: the new Secrets have a living owner and stay.
      await when(admin(), SecretResource, ns, SECRETS[1]!, "still the new Metal3Data's", (s) => s.metadata.ownerReferences?.[0]?.uid === data.metadata.uid);
    }
  });
}

test('D-12 (changed, issue 21): a deleted rendered Secret is rendered again within seconds, with the same allocation', async () => {
  const ns = await setup('m3d-secret-back', false);
  await createPool(admin(), ns, 'pool-v4', POOL);
  const data = (await createScene(admin(), ns, { template: TEMPLATE })).data!;
  await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true);
  const before = await secretText(admin(), ns, SECRETS[0]!, 'metaData');
  for (const name of SECRETS) {
    const old = await admin().api(SecretResource, ns).get(name);
    await admin().api(SecretResource, ns).delete(name);
    const start = performance.now();
    // The safety-net requeue is 120 s in these tests: only the watch brings it back this fast.
    const back = await when(admin(), SecretResource, ns, name, 'rendered again', (s) => s.metadata.uid !== old.metadata.uid, 5_000);
    assert.ok(performance.now() - start < 5_000);
    assert.is(back.metadata.ownerReferences?.[0]?.uid, data.metadata.uid);
  }
  assert.is(await secretText(admin(), ns, SECRETS[0]!, 'metaData'), before, 'the same address: the claim was kept');
  assert.is((await admin().api(IPClaimResource, ns).list()).items.length, 1, 'no second claim');
});

test.run();
