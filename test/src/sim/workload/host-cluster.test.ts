// Which cluster a host's kubelet joins.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { clusterOfHost, type ConsumerLookup } from './host-cluster.ts';

const test = suite('host → cluster');

const host = (consumerRef?: object, labels?: Record<string, string>): BareMetalHost =>
  ({
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { namespace: 'hosts', name: 'h', labels },
    spec: { online: true, consumerRef },
  }) as BareMetalHost;
const m3mRef = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m', namespace: 'ns' };
const m3m = (labels?: Record<string, string>, owner?: string): Metal3Machine => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  metadata: {
    namespace: 'ns',
    name: 'm3m',
    labels,
    ...(owner ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: owner, uid: 'm-uid' }] } : {}),
  },
});
const machine: Machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { namespace: 'ns', name: 'mach' },
  spec: { clusterName: 'from-machine', bootstrap: {}, infrastructureRef: {} },
};
const lookup = (m?: Metal3Machine): ConsumerLookup => ({
  metal3Machine: (ns, name) => (m && ns === 'ns' && name === 'm3m' ? m : undefined),
  machine: (ns, name) => (ns === 'ns' && name === 'mach' ? machine : undefined),
});

test('the chain: Metal3Machine label, owner Machine, host label; the Cluster is in the Metal3Machine namespace', () => {
  const cases: [BareMetalHost, Metal3Machine | undefined, string | undefined][] = [
    [host(m3mRef), m3m({ 'cluster.x-k8s.io/cluster-name': 'from-label' }, 'mach'), 'from-label'],
    [host(m3mRef), m3m({}, 'mach'), 'from-machine'],
    [host(m3mRef, { 'cluster.x-k8s.io/cluster-name': 'from-host' }), m3m(), 'from-host'],
    [host(m3mRef), m3m({}, 'missing-machine'), undefined],
    [host(m3mRef), undefined, undefined],
    [host(), m3m({ 'cluster.x-k8s.io/cluster-name': 'x' }), undefined],
    [host({ ...m3mRef, kind: 'Machine' }), m3m({ 'cluster.x-k8s.io/cluster-name': 'x' }), undefined],
    [host({ ...m3mRef, apiVersion: 'other.io/v1' }), m3m({ 'cluster.x-k8s.io/cluster-name': 'x' }), undefined],
  ];
  for (const [h, m, want] of cases) {
    const found = clusterOfHost(h, lookup(m));
    assert.is(found.found ? found.cluster.name : undefined, want, JSON.stringify([h.spec?.consumerRef, m?.metadata.labels]));
    if (found.found) assert.is(found.cluster.namespace, 'ns');
  }
});

test('a consumerRef without namespace means the host namespace', () => {
  const m = {
    ...m3m({ 'cluster.x-k8s.io/cluster-name': 'c' }),
    metadata: { namespace: 'hosts', name: 'm3m', labels: { 'cluster.x-k8s.io/cluster-name': 'c' } },
  };
  const found = clusterOfHost(host({ ...m3mRef, namespace: undefined }), { metal3Machine: (ns) => (ns === 'hosts' ? m : undefined), machine: () => undefined });
  assert.equal(found.found ? found.cluster : undefined, { namespace: 'hosts', name: 'c' });
});

test.run();
