import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMetal3DataFor } from './metal3data.ts';
import { claim, template } from './testing.ts';

const test = suite('the Metal3Data a claim gets (DT-13)');

test("DT-13: name, namespace, finalizer, the claim's labels, three owner references and the spec, as CAPM3 writes them", () => {
  const c = claim('machine-1', { template: 'nodepool-1', labels: { 'cluster.x-k8s.io/cluster-name': 'cluster', role: 'worker' } });
  const d = newMetal3DataFor({ template: template('nodepool-1'), claim: c, machine: c.metadata.ownerReferences![0]!, index: 3 });
  assert.equal(d, {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Data',
    metadata: {
      name: 'nodepool-1-3',
      namespace: 'ns',
      finalizers: ['metal3dataclaim.infrastructure.cluster.x-k8s.io'],
      labels: { 'cluster.x-k8s.io/cluster-name': 'cluster', role: 'worker' },
      ownerReferences: [
        { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3DataTemplate', name: 'nodepool-1', uid: 'uid-nodepool-1', controller: true },
        { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3DataClaim', name: 'machine-1', uid: 'uid-machine-1' },
        { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'machine-1', uid: 'uid-m3m-machine-1' },
      ],
    },
    spec: { index: 3, template: { name: 'nodepool-1', namespace: 'ns' }, claim: { name: 'machine-1', namespace: 'ns' } },
  });
});

test('seed 003: spec.templateReference is copied from the template when set; no labels means no labels field', () => {
  const d = newMetal3DataFor({
    template: template('new', { templateReference: 'old' }),
    claim: claim('m'),
    machine: claim('m').metadata.ownerReferences![0]!,
    index: 0,
  });
  assert.is(d.spec?.templateReference, 'old');
  assert.is(d.metadata.labels, undefined);
});

test.run();
