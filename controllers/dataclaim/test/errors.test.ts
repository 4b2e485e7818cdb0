// Bad input and waits on the real apiserver: a claim that cannot be served says why in
// status.errorMessage and a Warning event, never loops on errors, and is served as soon as the
// missing piece appears (its event wakes the claim: no polling). The controller runs under
// deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { Metal3DataClaimResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import {
  claimsBound,
  createClaim,
  createCluster,
  createTemplate,
  dataClaimSuite,
  eventually,
  getClaim,
  listData,
  loggedProblems,
  settled,
  sleep,
} from './support.ts';

const { test, admin, setup, controller, namespace } = dataClaimSuite('Metal3DataClaim controller: bad input and waits on the real apiserver');

const errorMessage = (ns: string, name: string) => eventually(`errorMessage on ${name}`, async () => (await getClaim(admin(), ns, name))?.status?.errorMessage);

function warning(ns: string, reason: string) {
  return eventually(`a ${reason} event`, async () => (await admin().api(EventResource, ns).list()).items.find((e) => e.reason === reason));
}

test("missing template (changed: upstream stays silent): errorMessage and a Warning event, no retry loop; the template's creation serves the claim and clears the message", async () => {
  const ns = await setup('dc-notemplate');
  await createCluster(admin(), ns);
  await createClaim(admin(), ns, 'm', 'later');
  assert.is(await errorMessage(ns, 'm'), `spec.template.name: Not found: Metal3DataTemplate "later" does not exist in namespace "${ns}"`);
  const event = await warning(ns, 'Metal3DataTemplateNotFound');
  assert.is(event.type, 'Warning');
  assert.is(event.involvedObject.name, 'm');
  await settled(controller(), 0);
  const reconciles = controller().reconciles();
  await sleep(1000);
  assert.is(controller().reconciles(), reconciles, 'no requeue, no backoff loop');
  assert.is(controller().errors(), 0);
  assert.equal(await listData(admin(), ns), []);
  const claim = await getClaim(admin(), ns, 'm');
  assert.equal(claim?.metadata.finalizers, ['metal3machine.infrastructure.cluster.x-k8s.io'], 'nothing allocated, no finalizer of ours yet');

  await createTemplate(admin(), ns, 'later');
  assert.equal(await claimsBound(admin(), ns, ['m']), { m: 'later-0' });
  assert.is((await getClaim(admin(), ns, 'm'))?.status?.errorMessage, undefined);
});

test("W-9 (controller side): a template in another namespace is refused with the webhook's message; nothing is read or allocated there", async () => {
  const ns = await setup('dc-foreign');
  const other = await namespace('dc-foreign-other');
  await createCluster(admin(), other);
  await createTemplate(admin(), other, 'tmpl');
  await createClaim(admin(), ns, 'm', 'tmpl', { templateNamespace: other });
  assert.match(
    await errorMessage(ns, 'm'),
    /^spec\.template\.namespace: Invalid value: ".*": must be empty or match the Metal3DataClaim namespace; cross-namespace template references are not allowed$/,
  );
  await warning(ns, 'InvalidTemplateReference');
  assert.equal(await listData(admin(), other), []);
  assert.is(controller().errors(), 0);
});

test('DT-11: no Metal3Machine owner → upstream\'s "Metal3Machine not found in owner references" (no retry loop); adding the owner serves the claim', async () => {
  const ns = await setup('dc-noowner');
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns, 'tmpl');
  const { claim } = await createClaim(admin(), ns, 'orphan', 'tmpl', { noOwner: true });
  assert.is(await errorMessage(ns, 'orphan'), 'Metal3Machine not found in owner references');
  await warning(ns, 'Metal3MachineOwnerMissing');
  await settled(controller(), 0);
  assert.is(controller().errors(), 0);
  assert.equal(await listData(admin(), ns), []);

  const { machine } = await createClaim(admin(), ns, 'owner', 'tmpl');
  await claimsBound(admin(), ns, ['owner']);
  await admin().api(Metal3DataClaimResource, ns).mergePatch('orphan', {
    metadata: {
      ownerReferences: [{
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'Metal3Machine',
        name: 'owner',
        uid: machine!.metadata.uid!,
        controller: true,
      }],
    },
  });
  assert.is((await claimsBound(admin(), ns, ['orphan']))['orphan'], 'tmpl-1');
  assert.is((await getClaim(admin(), ns, 'orphan'))?.status?.errorMessage, undefined);
  assert.ok(claim.metadata.uid);
});

test("DT-5/E-43 (changed): a claim waits for its template's Cluster without polling and is served when the Cluster appears", async () => {
  const ns = await setup('dc-nocluster');
  await createTemplate(admin(), ns, 'tmpl');
  await createClaim(admin(), ns, 'm', 'tmpl');
  await settled(controller(), 0);
  assert.equal(await listData(admin(), ns), []);
  assert.is((await getClaim(admin(), ns, 'm'))?.status, undefined, 'a wait is not an error');
  const writes = controller().writes();
  await createCluster(admin(), ns);
  assert.equal(await claimsBound(admin(), ns, ['m']), { m: 'tmpl-0' });
  assert.ok(controller().writes() > writes);
});

test('DT-6/§0.6: nothing is allocated or released while the Cluster is paused, or the template carries the pause annotation; un-pausing resumes at once', async () => {
  const ns = await setup('dc-paused');
  await createCluster(admin(), ns, 'cluster', true);
  await createTemplate(admin(), ns, 'tmpl');
  await createClaim(admin(), ns, 'm', 'tmpl');
  await sleep(800);
  assert.equal(await listData(admin(), ns), []);
  assert.is(controller().writes(), 0, 'nothing written while paused');

  await admin().api(ClusterResource, ns).mergePatch('cluster', { spec: { paused: false } });
  await claimsBound(admin(), ns, ['m']);

  await admin().api(Metal3DataTemplateResource, ns).mergePatch('tmpl', { metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } } });
  // The controller's cache must hold the annotation before the delete, or the delete could win the race.
  const templates = controller().informers.informerFor(Metal3DataTemplateResource).store;
  await eventually(
    "the pause annotation in the controller's cache",
    () => (templates.get({ namespace: ns, name: 'tmpl' })?.metadata.annotations?.['cluster.x-k8s.io/paused'] === undefined ? undefined : true),
  );
  await admin().api(Metal3DataClaimResource, ns).delete('m');
  await sleep(800);
  assert.ok((await getClaim(admin(), ns, 'm'))?.metadata.finalizers?.includes('metal3dataclaim.infrastructure.cluster.x-k8s.io'), 'not released while paused');
  assert.equal((await listData(admin(), ns)).map((d) => d.metadata.name), ['tmpl-0']);

  await admin().api(Metal3DataTemplateResource, ns).mergePatch('tmpl', { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } });
  await eventually('released after the unpause', async () => ((await listData(admin(), ns)).length === 0 ? true : undefined));
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
