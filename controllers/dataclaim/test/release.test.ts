// DT-15, DC-4, E-34, §0.1 on the real apiserver: deleting a claim gives back its Metal3Data and its
// ledger entry and removes only our finalizer; a freed index is reused, lowest first, once the old
// Metal3Data is really gone. The controller runs under deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource, Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import {
  claimsBound,
  createClaim,
  createCluster,
  createTemplate,
  dataClaimSuite,
  deleteClaimAsMachineController,
  eventually,
  getClaim,
  listData,
  loggedProblems,
} from './support.ts';

const { test, admin, setup, controller } = dataClaimSuite('Metal3DataClaim controller: release and reuse on the real apiserver');

async function setupWithTemplate(prefix: string): Promise<string> {
  const ns = await setup(prefix);
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns, 'tmpl');
  return ns;
}

const names = async (ns: string) => (await listData(admin(), ns)).map((d) => d.metadata.name).sort();

test("DT-15/§0.1: a deleted claim loses its Metal3Data and ledger entry; only our finalizer is removed, the Metal3Machine's holds the claim (renderedData cleared)", async () => {
  const ns = await setupWithTemplate('dc-release');
  for (const n of ['a', 'b']) {
    await createClaim(admin(), ns, n, 'tmpl');
    await claimsBound(admin(), ns, [n]);
  }

  // Deleted while the Metal3Machine controller still holds it.
  await admin().api(Metal3DataClaimResource, ns).delete('a');
  const held = await eventually('our finalizer off claim a', async () => {
    const c = await getClaim(admin(), ns, 'a');
    return c && !c.metadata.finalizers?.includes('metal3dataclaim.infrastructure.cluster.x-k8s.io') ? c : undefined;
  });
  assert.equal(held.metadata.finalizers, ['metal3machine.infrastructure.cluster.x-k8s.io']);
  assert.is(held.status?.renderedData, undefined, 'status no longer names a Metal3Data that is gone');
  await eventually('tmpl-0 gone', async () => ((await names(ns)).includes('tmpl-0') ? undefined : true));
  const ledger = await eventually('ledger without a', async () => {
    const s = (await admin().api(Metal3DataTemplateResource, ns).get('tmpl')).status;
    return s?.indexes && !('a' in s.indexes) ? s : undefined;
  });
  assert.equal(ledger.indexes, { b: 1 });
  assert.equal(ledger.dataNames, { b: 'tmpl-1' });

  // DC-4: the Metal3Machine controller lets go; the claim is gone.
  await deleteClaimAsMachineController(admin(), ns, 'a');
  await eventually('claim a gone', async () => ((await getClaim(admin(), ns, 'a')) ? undefined : true));
  assert.equal(await names(ns), ['tmpl-1']);
  assert.is(controller().errors(), 0);
});

test('DT-12/E-34: freed indexes are reused lowest first, but only once the old Metal3Data is really gone (a Metal3Data controller finalizer holds the name)', async () => {
  const ns = await setupWithTemplate('dc-reuse');
  const first = ['c0', 'c1', 'c2', 'c3'];
  for (const n of first) {
    await createClaim(admin(), ns, n, 'tmpl');
    await claimsBound(admin(), ns, [n]);
  }
  assert.equal(await claimsBound(admin(), ns, first), { c0: 'tmpl-0', c1: 'tmpl-1', c2: 'tmpl-2', c3: 'tmpl-3' });
  // The Metal3Data controller's finalizer (D-8) on tmpl-1: it keeps the object until its IPs are released.
  await admin().api(Metal3DataResource, ns).jsonPatch('tmpl-1', [{
    op: 'add',
    path: '/metadata/finalizers/-',
    value: 'metal3data.infrastructure.cluster.x-k8s.io',
  }]);

  await deleteClaimAsMachineController(admin(), ns, 'c1');
  await deleteClaimAsMachineController(admin(), ns, 'c3');
  await eventually('claims c1, c3 gone', async () => ((await getClaim(admin(), ns, 'c1')) || (await getClaim(admin(), ns, 'c3')) ? undefined : true));
  await eventually('tmpl-3 gone', async () => ((await names(ns)).includes('tmpl-3') ? undefined : true));
  const terminating = await admin().api(Metal3DataResource, ns).get('tmpl-1');
  assert.ok(terminating.metadata.deletionTimestamp, 'tmpl-1 is terminating, held by the other finalizer');
  assert.equal(terminating.metadata.finalizers, ['metal3data.infrastructure.cluster.x-k8s.io'], 'ours is off it');

  // Index 1's name is still taken: the next claim gets 3, the lowest really free index.
  await createClaim(admin(), ns, 'c4', 'tmpl');
  assert.is((await claimsBound(admin(), ns, ['c4']))['c4'], 'tmpl-3');

  // The Metal3Data controller releases tmpl-1: index 1 is free again and goes to the next claim.
  await admin().api(Metal3DataResource, ns).jsonPatch('tmpl-1', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
  await eventually('tmpl-1 gone', async () => ((await names(ns)).includes('tmpl-1') ? undefined : true));
  await createClaim(admin(), ns, 'c5', 'tmpl');
  assert.is((await claimsBound(admin(), ns, ['c5']))['c5'], 'tmpl-1');
  assert.equal(await names(ns), ['tmpl-0', 'tmpl-1', 'tmpl-2', 'tmpl-3']);
  assert.is(controller().errors(), 0);
});

test('a claim whose recorded Metal3Data vanished (finalizer forced off, deleted) gets it back at the same index', async () => {
  const ns = await setupWithTemplate('dc-vanish');
  await createClaim(admin(), ns, 'm', 'tmpl');
  await claimsBound(admin(), ns, ['m']);
  await admin().api(Metal3DataResource, ns).jsonPatch('tmpl-0', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
  await admin().api(Metal3DataResource, ns).delete('tmpl-0');
  const back = await eventually('tmpl-0 recreated', async () => {
    const d = (await listData(admin(), ns)).find((x) => x.metadata.name === 'tmpl-0');
    return d && !d.metadata.deletionTimestamp ? d : undefined;
  });
  assert.is(back.spec?.claim.name, 'm');
  assert.is((await getClaim(admin(), ns, 'm'))?.status?.renderedData?.name, 'tmpl-0');
});

test('the controller logged no warning or error in these tests', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
