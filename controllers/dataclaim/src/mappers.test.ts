import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metal3DataClaimResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { admits } from '@metal3-ts/shared/controller/predicates';
import { FakeInformer } from '@metal3-ts/shared/testing/fake-informer';
import {
  claimChanged,
  CLAIMS_BY_TEMPLATE_INDEX,
  claimsByTemplate,
  clusterToClaims,
  dataDeleted,
  dataToClaim,
  templateChanged,
  TEMPLATES_BY_CLUSTER_INDEX,
  templatesByCluster,
  templateToClaims,
} from './mappers.ts';
import { DATA_CLAIM_FINALIZER, METAL3_MACHINE_FINALIZER } from './names.ts';
import { claim, cluster, data, template } from './testing.ts';

const test = suite('watches: what wakes a claim');

function stores() {
  const claims = new FakeInformer(Metal3DataClaimResource);
  claims.addIndex(CLAIMS_BY_TEMPLATE_INDEX, claimsByTemplate);
  const templates = new FakeInformer(Metal3DataTemplateResource);
  templates.addIndex(TEMPLATES_BY_CLUSTER_INDEX, templatesByCluster);
  claims.create(claim('a'));
  claims.create(claim('b'));
  claims.create(claim('c', { template: 'other' }));
  claims.create(claim('foreign', { templateNamespace: 'elsewhere' }));
  templates.create(template('tmpl'));
  templates.create(template('other', { clusterName: 'another' }));
  return { claims, templates };
}

const names = (requests: readonly { name: string }[]) => requests.map((r) => r.name).sort();

test('DT-2: a template wakes the claims naming it in its namespace (a foreign reference names none)', () => {
  const { claims } = stores();
  assert.equal(names(templateToClaims(claims.store)(template('tmpl'))), ['a', 'b']);
  assert.equal(names(templateToClaims(claims.store)(template('other'))), ['c']);
});

test('a Cluster wakes the claims of its templates; a Metal3Data its claim', () => {
  const { claims, templates } = stores();
  assert.equal(names(clusterToClaims(templates.store, claims.store)(cluster('cluster'))), ['a', 'b']);
  assert.equal(names(clusterToClaims(templates.store, claims.store)(cluster('another'))), ['c']);
  assert.equal(dataToClaim(data(template('tmpl'), claim('a'), 0)), [{ namespace: 'ns', name: 'a' }]);
});

test('claim events: status-only writes and our own finalizer staying put do not wake it; spec, owners, deletion, pause and our finalizer going do', () => {
  const base = claim('a', { finalizers: [METAL3_MACHINE_FINALIZER, DATA_CLAIM_FINALIZER] });
  const update = (next: ReturnType<typeof claim>) => admits(claimChanged, { type: 'update', old: base, object: next });
  assert.not.ok(update({ ...base, status: { renderedData: { name: 'tmpl-0', namespace: 'ns' } } }));
  assert.ok(update({ ...base, status: { renderedData: { name: 'tmpl-0', namespace: 'elsewhere' } } }), 'issue 21: a foreign status.renderedData');
  assert.not.ok(
    update({ ...base, metadata: { ...base.metadata, resourceVersion: '9', finalizers: [DATA_CLAIM_FINALIZER] } }),
    "the Metal3Machine's finalizer leaving",
  );
  assert.ok(update({ ...base, metadata: { ...base.metadata, finalizers: [METAL3_MACHINE_FINALIZER] } }), 'ours removed by someone');
  assert.ok(update({ ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }));
  assert.ok(update({ ...base, metadata: { ...base.metadata, ownerReferences: [] } }));
  assert.ok(update({ ...base, metadata: { ...base.metadata, annotations: { 'cluster.x-k8s.io/paused': '' } } }));
});

test('template events: creates and changes of clusterName, templateReference or the pause annotation; not our ledger writes, not deletes', () => {
  const t = template('tmpl');
  assert.ok(admits(templateChanged, { type: 'add', object: t }));
  assert.not.ok(admits(templateChanged, { type: 'update', old: t, object: { ...t, status: { indexes: { a: 0 } } } }));
  assert.ok(admits(templateChanged, { type: 'update', old: template('tmpl', { annotations: { 'cluster.x-k8s.io/paused': '' } }), object: t }));
  assert.ok(admits(templateChanged, { type: 'update', old: t, object: template('tmpl', { clusterName: 'moved' }) }));
  assert.ok(admits(templateChanged, { type: 'update', old: t, object: template('tmpl', { templateReference: 'old' }) }));
  assert.not.ok(admits(templateChanged, { type: 'delete', object: t }));
  assert.ok(admits(dataDeleted, { type: 'delete', object: data(t, claim('a'), 0) }));
  assert.not.ok(admits(dataDeleted, { type: 'add', object: data(t, claim('a'), 0) }));
});

test.run();
