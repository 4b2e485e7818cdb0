// The objects kubeadm leaves in a workload cluster that KubeadmControlPlane checks (issue 17).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import type { Node } from '@metal3-ts/generated/core/v1';
import { kubeadmConfigMap, mirrorPods } from './control-plane.ts';

const test = suite('control-plane objects');
const now = '2026-01-01T00:00:00Z';
const node: Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'cp-0', uid: 'node-uid' },
  status: { addresses: [{ type: 'InternalIP', address: '192.168.111.21' }, { type: 'Hostname', address: 'cp-0' }] },
};

test('one mirror Pod per component, named <component>-<node> in kube-system, owned by the Node, Running and Ready', () => {
  const pods = mirrorPods(node, 'v1.31.0', now);
  assert.equal(pods.map((p) => p.metadata.name), ['kube-apiserver-cp-0', 'kube-controller-manager-cp-0', 'kube-scheduler-cp-0', 'etcd-cp-0']);
  for (const pod of pods) {
    assert.is(pod.metadata.namespace, 'kube-system');
    assert.is(pod.metadata.labels?.['tier'], 'control-plane');
    assert.ok(pod.metadata.annotations?.['kubernetes.io/config.mirror'], 'a mirror pod');
    assert.equal(pod.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['Node', 'cp-0', 'node-uid']]);
    assert.is(pod.spec?.['nodeName'], 'cp-0');
    assert.is(pod.status?.phase, 'Running');
    assert.is(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  }
  assert.equal((pods[0]!.spec?.['containers'] as { image: string }[])[0]!.image, 'registry.k8s.io/kube-apiserver:v1.31.0');
});

test("kubeadm-config holds the init data's ClusterConfiguration with the Machine's version, or a minimal one", () => {
  const cm = kubeadmConfigMap(
    { apiVersion: 'kubeadm.k8s.io/v1beta3', kind: 'ClusterConfiguration', clusterName: 'c', kubernetesVersion: 'v1.30.0' },
    'v1.31.0',
  );
  assert.equal([cm.metadata.namespace, cm.metadata.name], ['kube-system', 'kubeadm-config']);
  assert.equal(parse(cm.data!['ClusterConfiguration']!), {
    apiVersion: 'kubeadm.k8s.io/v1beta3',
    kind: 'ClusterConfiguration',
    clusterName: 'c',
    kubernetesVersion: 'v1.31.0',
  });
  assert.equal(parse(kubeadmConfigMap(undefined, 'v1.31.0').data!['ClusterConfiguration']!), {
    apiVersion: 'kubeadm.k8s.io/v1beta4',
    kind: 'ClusterConfiguration',
    kubernetesVersion: 'v1.31.0',
  });
});

test.run();
