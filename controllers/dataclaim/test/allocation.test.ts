// DC-1…DC-3, DT-11…DT-14, §0.1 on the real apiserver: a claim made as the Metal3Machine controller
// makes it gets the lowest free index of its template, a Metal3Data shaped exactly as CAPM3 makes it,
// status.renderedData, the finalizers of §0.1, and an entry in the template's ledger. The controller
// runs under deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource, Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { claimsBound, createClaim, createCluster, createTemplate, dataClaimSuite, eventually, listData, loggedProblems, settled } from './support.ts';

const { test, admin, setup, controller } = dataClaimSuite('Metal3DataClaim controller: allocation on the real apiserver');

test('DC-1/DC-2/DT-11/DT-13/DT-14/§0.1: a claim gets <template>-0 shaped as upstream, status.renderedData, both finalizers, and the template ledger entry', async () => {
  const ns = await setup('dc-alloc');
  await createCluster(admin(), ns);
  const template = await createTemplate(admin(), ns, 'nodepool-1');
  const { machine, claim } = await createClaim(admin(), ns, 'machine-1', 'nodepool-1', {
    labels: { 'cluster.x-k8s.io/cluster-name': 'cluster', role: 'worker' },
  });
  await claimsBound(admin(), ns, ['machine-1']);

  const bound = await admin().api(Metal3DataClaimResource, ns).get('machine-1');
  assert.equal(bound.status?.renderedData, { name: 'nodepool-1-0', namespace: ns });
  assert.is(bound.status?.errorMessage, undefined);
  // §0.1: ours appended; the Metal3Machine controller's untouched.
  assert.equal(bound.metadata.finalizers, ['metal3machine.infrastructure.cluster.x-k8s.io', 'metal3dataclaim.infrastructure.cluster.x-k8s.io']);

  const data = await admin().api(Metal3DataResource, ns).get('nodepool-1-0');
  assert.equal(data.metadata.finalizers, ['metal3dataclaim.infrastructure.cluster.x-k8s.io']);
  assert.equal(data.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'cluster', role: 'worker' });
  assert.equal(data.metadata.ownerReferences, [
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3DataTemplate', name: 'nodepool-1', uid: template.metadata.uid!, controller: true },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3DataClaim', name: 'machine-1', uid: claim.metadata.uid! },
    { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'machine-1', uid: machine!.metadata.uid! },
  ]);
  assert.equal(data.spec, { index: 0, template: { name: 'nodepool-1', namespace: ns }, claim: { name: 'machine-1', namespace: ns } });

  const ledger = await eventually('the template ledger', async () => {
    const t = await admin().api(Metal3DataTemplateResource, ns).get('nodepool-1');
    return t.status?.dataNames?.['machine-1'] ? t.status : undefined;
  });
  assert.equal(ledger.indexes, { 'machine-1': 0 });
  assert.equal(ledger.dataNames, { 'machine-1': 'nodepool-1-0' });
  assert.match(ledger.lastUpdated ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // The template's spec and metadata are not ours to write.
  const after = await admin().api(Metal3DataTemplateResource, ns).get('nodepool-1');
  assert.equal(after.metadata.finalizers, undefined);
  assert.is(after.metadata.generation, template.metadata.generation);
});

test('DT-12/DR-2: claims get unique dense indexes, lowest first; one Metal3Data each; a settled claim costs no request', async () => {
  const ns = await setup('dc-dense');
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns, 'workers');
  const names = ['w-a', 'w-b', 'w-c', 'w-d', 'w-e', 'w-f'];
  await Promise.all(names.map((n) => createClaim(admin(), ns, n, 'workers')));
  const bound = await claimsBound(admin(), ns, names);
  const datas = await listData(admin(), ns);
  assert.equal(datas.map((d) => d.spec?.index).sort(), [0, 1, 2, 3, 4, 5]);
  assert.equal(Object.values(bound).sort(), ['workers-0', 'workers-1', 'workers-2', 'workers-3', 'workers-4', 'workers-5']);
  for (const d of datas) assert.is(bound[d.spec?.claim.name ?? ''], d.metadata.name, `${d.metadata.name} serves the claim that names it`);
  assert.is(controller().conflicts(), 0, 'one process never loses a race to itself');

  await settled(controller(), 0);
  const before = controller().writes();
  const reconciles = controller().reconciles();
  // A label change on a claim reconciles it; nothing is left to write.
  await admin().api(Metal3DataClaimResource, ns).mergePatch('w-a', { metadata: { labels: { touched: 'yes' } } });
  await settled(controller(), reconciles);
  assert.is(controller().writes(), before, 'no request for a claim that is done');
  assert.is(controller().errors(), 0);

  const ledger = (await admin().api(Metal3DataTemplateResource, ns).get('workers')).status;
  assert.equal(Object.keys(ledger?.indexes ?? {}).sort(), names);
  assert.ok(controller().writes('metal3datatemplates') <= names.length, `template writes are grouped (${controller().writes('metal3datatemplates')})`);
});

test('seed 003/DR-1 (changed): a template whose templateReference names an older template shares its index space, and its Metal3Data carry the key', async () => {
  const ns = await setup('dc-lineage');
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns, 'old');
  await Promise.all(['o-0', 'o-1'].map((n) => createClaim(admin(), ns, n, 'old')));
  await claimsBound(admin(), ns, ['o-0', 'o-1']);
  await createTemplate(admin(), ns, 'new', { templateReference: 'old' });
  await createClaim(admin(), ns, 'n-0', 'new');
  const bound = await claimsBound(admin(), ns, ['n-0']);
  assert.is(bound['n-0'], 'new-2', "indexes 0 and 1 are still used by the old template's machines");
  const data = await admin().api(Metal3DataResource, ns).get('new-2');
  assert.is(data.spec?.templateReference, 'old');
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
