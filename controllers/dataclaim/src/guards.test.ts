import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { withReferenceAt } from '@metal3-ts/shared/testing/references';
import { type Guard, guard } from './guards.ts';
import { DATA_CLAIM_FINALIZER, METAL3_MACHINE_FINALIZER } from './names.ts';
import { claim, cluster, template } from './testing.ts';

const test = suite('guards: what a claim reconcile does');

const PAUSED = { 'cluster.x-k8s.io/paused': '' };
const kind = (g: Guard) => g.kind;

test('DT-11: a claim whose template and Cluster exist is allocated', () => {
  const g = guard({ claim: claim('c'), template: template('tmpl'), cluster: cluster() });
  assert.is(kind(g), 'Allocate');
});

test("DT-5 (kept): the template's Cluster must exist before anything is allocated", () => {
  assert.equal(guard({ claim: claim('c'), template: template('tmpl', { clusterName: 'later' }), cluster: undefined }), {
    kind: 'WaitForCluster',
    clusterName: 'later',
  });
});

test('DT-6/§0.6: Cluster spec.paused, or the pause annotation on the template or (ours) the claim, stop everything, deletion included', () => {
  const deleting = claim('c', { deleting: true, finalizers: [DATA_CLAIM_FINALIZER] });
  for (
    const [what, inputs] of [
      ['cluster', { claim: claim('c'), template: template('tmpl'), cluster: cluster('cluster', true) }],
      ['template', { claim: claim('c'), template: template('tmpl', { annotations: PAUSED }), cluster: cluster() }],
      ['claim', { claim: claim('c', { annotations: PAUSED }), template: template('tmpl'), cluster: cluster() }],
      ['deleting, cluster paused', { claim: deleting, template: template('tmpl'), cluster: cluster('cluster', true) }],
    ] as const
  ) {
    assert.is(kind(guard(inputs)), 'Paused', what);
  }
});

test('bad input (changed: upstream ignores the claim silently): a foreign or empty template reference, a missing template', () => {
  const foreign = guard({ claim: claim('c', { templateNamespace: 'elsewhere' }), template: undefined, cluster: undefined });
  assert.is(foreign.kind === 'Invalid' && foreign.reason, 'InvalidTemplateReference');
  const missing = guard({ claim: claim('c', { template: 'nope' }), template: undefined, cluster: undefined });
  assert.equal(missing, {
    kind: 'Invalid',
    reason: 'Metal3DataTemplateNotFound',
    message: 'spec.template.name: Not found: Metal3DataTemplate "nope" does not exist in namespace "ns"',
  });
});

test('issue 21: a status.renderedData in another namespace is bad input, named, before anything is allocated', () => {
  const c = claim('c');
  const foreign = guard({ claim: { ...c, status: { renderedData: { name: 't-0', namespace: 'elsewhere' } } }, template: template('tmpl'), cluster: cluster() });
  assert.is(foreign.kind === 'Invalid' && foreign.reason, 'InvalidRenderedDataReference');
  assert.match(foreign.kind === 'Invalid' ? foreign.message : '', /^status\.renderedData\.namespace: Invalid value: "elsewhere"/);
  const own = guard({
    claim: { ...c, status: { renderedData: { name: 't-0', namespace: c.metadata.namespace ?? '' } } },
    template: template('tmpl'),
    cluster: cluster(),
  });
  assert.is(own.kind, 'Allocate');
});

test('issue 21: every field of the shared Metal3DataClaim table, naming another namespace, is bad input with that field named', () => {
  for (const path of REFERENCE_FIELDS.Metal3DataClaim) {
    const g = guard({ claim: withReferenceAt(claim('c'), path, 'elsewhere', 'tmpl'), template: template('tmpl'), cluster: cluster() });
    assert.is(g.kind, 'Invalid', path);
    assert.match(
      g.kind === 'Invalid' ? g.message : '',
      `${path}.namespace: Invalid value: "elsewhere": must be empty or match the Metal3DataClaim namespace`,
      path,
    );
  }
});

test('DT-15: a deleting claim with our finalizer is released, even with its template and Cluster gone (changed: upstream never reconciles it then)', () => {
  const deleting = claim('c', { deleting: true, finalizers: [METAL3_MACHINE_FINALIZER, DATA_CLAIM_FINALIZER] });
  assert.is(kind(guard({ claim: deleting, template: template('tmpl'), cluster: cluster() })), 'Release');
  assert.is(kind(guard({ claim: deleting, template: undefined, cluster: undefined })), 'Release');
  assert.is(kind(guard({ claim: claim('c', { deleting: true }), template: template('tmpl'), cluster: cluster() })), 'Done', 'our finalizer already gone');
});

test.run();
