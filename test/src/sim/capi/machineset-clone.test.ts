import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cloneFromTemplate, groupKindString, InvalidTemplateError, referenceTo, type TemplateObject } from './machineset-clone.ts';

const test = suite('cloning a template (external.GenerateTemplate)');

const m3mt: TemplateObject = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3MachineTemplate',
  metadata: { name: 'workers-v1', namespace: 'ns' },
  spec: {
    template: {
      metadata: { labels: { tier: 'worker', shared: 'template' }, annotations: { note: 'from-template' } },
      spec: { image: { url: 'http://img/node.img', checksum: 'http://img/node.img.sha256' }, hostSelector: { matchLabels: { rack: 'a' } } },
    },
  },
};

test('Metal3MachineTemplate becomes a Metal3Machine with the cloned-from annotations, merged labels and the on-create owner', () => {
  const clone = cloneFromTemplate({
    template: m3mt,
    templateRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'workers-v1', namespace: 'ns' },
    name: 'ms-abcde',
    namespace: 'ns',
    clusterName: 'c1',
    labels: { shared: 'machine', 'cluster.x-k8s.io/set-name': 'ms', 'cluster.x-k8s.io/cluster-name': 'wrong' },
    annotations: { extra: 'yes' },
    owner: { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: 'u-1' },
  });
  assert.is(clone.apiVersion, 'infrastructure.cluster.x-k8s.io/v1beta1');
  assert.is(clone.kind, 'Metal3Machine');
  assert.equal(clone.metadata, {
    name: 'ms-abcde',
    namespace: 'ns',
    labels: { tier: 'worker', shared: 'machine', 'cluster.x-k8s.io/set-name': 'ms', 'cluster.x-k8s.io/cluster-name': 'c1' },
    annotations: {
      note: 'from-template',
      extra: 'yes',
      'cluster.x-k8s.io/cloned-from-name': 'workers-v1',
      'cluster.x-k8s.io/cloned-from-groupkind': 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io',
    },
    ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: 'u-1' }],
  });
  assert.equal(clone.spec, m3mt.spec?.template?.spec);
  assert.is.not(clone.spec, m3mt.spec?.template?.spec, 'the spec is a copy, not shared with the template');
});

test('KubeadmConfigTemplate becomes a KubeadmConfig; no owner means no ownerReferences', () => {
  const clone = cloneFromTemplate({
    template: {
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1',
      kind: 'KubeadmConfigTemplate',
      metadata: { name: 'kct' },
      spec: { template: { spec: { format: 'cloud-config' } } },
    },
    templateRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate', name: 'kct' },
    name: 'm-1',
    namespace: 'ns',
    clusterName: 'c1',
  });
  assert.is(clone.kind, 'KubeadmConfig');
  assert.is(clone.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind'], 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io');
  assert.equal(clone.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1' });
  assert.is(clone.metadata.ownerReferences, undefined);
  assert.equal(clone.spec, { format: 'cloud-config' });
});

test('a kind without the Template suffix keeps its name; an empty template spec clones to an empty spec', () => {
  const clone = cloneFromTemplate({
    template: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { template: {} } },
    templateRef: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' },
    name: 'x',
    namespace: 'ns',
    clusterName: 'c',
  });
  assert.is(clone.kind, 'Widget');
  assert.equal(clone.spec, {});
});

test('a template without spec.template is refused', () => {
  assert.throws(
    () =>
      cloneFromTemplate({
        template: { apiVersion: 'v1', kind: 'XTemplate', metadata: { name: 't' } },
        templateRef: { name: 't' },
        name: 'x',
        namespace: 'ns',
        clusterName: 'c',
      }),
    (e: unknown) => e instanceof InvalidTemplateError,
  );
});

test('group-kind strings and references', () => {
  assert.is(groupKindString({ apiVersion: 'v1', kind: 'Secret' }), 'Secret');
  assert.is(
    groupKindString({ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane' }),
    'KubeadmControlPlane.controlplane.cluster.x-k8s.io',
  );
  assert.equal(referenceTo({ apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n', namespace: 'ns', uid: 'u' } }), {
    apiVersion: 'a/v1',
    kind: 'K',
    name: 'n',
    namespace: 'ns',
  });
});

test.run();
