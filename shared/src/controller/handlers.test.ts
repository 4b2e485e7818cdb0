import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, OwnerReference } from '@metal3-ts/generated';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { CacheEvent } from '../cache/types.ts';
import { enqueueFromMap, enqueueOwner, enqueueSelf, requestFor } from './handlers.ts';

const test = suite('event handlers');

const m3m = (name: string, controller = true): OwnerReference => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  name,
  uid: `uid-${name}`,
  controller,
});
const claim = (ownerReferences: OwnerReference[], namespace = 'ns'): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3DataClaim',
  metadata: { ...(namespace ? { namespace } : {}), name: 'claim', ownerReferences },
});

test('requestFor names the object; cluster-scoped objects have no namespace', () => {
  assert.equal(requestFor(claim([])), { namespace: 'ns', name: 'claim' });
  assert.equal(requestFor(claim([], '')), { name: 'claim' });
});

test('enqueueSelf enqueues the event object for every event type', () => {
  const h = enqueueSelf<KubeObject>();
  const o = claim([]);
  assert.equal(h({ type: 'add', object: o }), [{ namespace: 'ns', name: 'claim' }]);
  assert.equal(h({ type: 'delete', object: o }), [{ namespace: 'ns', name: 'claim' }]);
});

test('enqueueOwner enqueues the controller owner of the given group/kind only', () => {
  const h = enqueueOwner(Metal3MachineResource);
  const cases: [string, OwnerReference[], { namespace?: string; name: string }[]][] = [
    ['controller owner', [m3m('a')], [{ namespace: 'ns', name: 'a' }]],
    ['non-controller owner is ignored', [m3m('a', false)], []],
    ['other kind', [{ ...m3m('a'), kind: 'Machine' }], []],
    ['other group, same kind', [{ ...m3m('a'), apiVersion: 'example.com/v1' }], []],
    ['any version of the group', [{ ...m3m('a'), apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5' }], [{ namespace: 'ns', name: 'a' }]],
    ['no owners', [], []],
  ];
  for (const [id, refs, want] of cases) assert.equal(h({ type: 'add', object: claim(refs) }), want, id);
});

test('enqueueOwner with onlyController: false enqueues every owner of the kind (M-5)', () => {
  const h = enqueueOwner(Metal3MachineResource, { onlyController: false });
  assert.equal(h({ type: 'add', object: claim([m3m('a', false), m3m('b')]) }), [
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'b' },
  ]);
});

test('an update that moves the owner wakes both the old and the new owner, each once', () => {
  const h = enqueueOwner(Metal3MachineResource);
  const event: CacheEvent<KubeObject> = { type: 'update', old: claim([m3m('a')]), object: claim([m3m('b')]) };
  assert.equal(h(event), [
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'b' },
  ]);
  const same: CacheEvent<KubeObject> = { type: 'update', old: claim([m3m('a')]), object: claim([m3m('a')]) };
  assert.equal(h(same), [{ namespace: 'ns', name: 'a' }]);
});

test('a cluster-scoped owner is enqueued without a namespace', () => {
  const h = enqueueOwner({ group: 'example.com', kind: 'Pool', namespaced: false });
  const ref: OwnerReference = { apiVersion: 'example.com/v1', kind: 'Pool', name: 'p', uid: 'u', controller: true };
  assert.equal(h({ type: 'add', object: claim([ref]) }), [{ name: 'p' }]);
  assert.is(ClusterResource.namespaced, true);
});

test('enqueueFromMap maps old and new objects, drops duplicates and empty names (M-7 host → consumer)', () => {
  type Host = KubeObject & { spec?: { consumerRef?: { namespace?: string; name?: string } } };
  const host = (consumer?: string): Host => ({
    apiVersion: BareMetalHostResource.apiVersion,
    kind: 'BareMetalHost',
    metadata: { namespace: 'ns', name: 'h' },
    spec: consumer === undefined ? {} : { consumerRef: { namespace: 'ns', name: consumer } },
  });
  const h = enqueueFromMap<Host>((o) => {
    const ref = o.spec?.consumerRef;
    return ref ? [{ namespace: ref.namespace ?? 'ns', name: ref.name ?? '' }] : [];
  });
  assert.equal(h({ type: 'update', old: host('m1'), object: host('m2') }), [
    { namespace: 'ns', name: 'm1' },
    { namespace: 'ns', name: 'm2' },
  ]);
  assert.equal(h({ type: 'update', old: host('m1'), object: host('m1') }), [{ namespace: 'ns', name: 'm1' }]);
  assert.equal(h({ type: 'add', object: host() }), []);
  assert.equal(h({ type: 'add', object: host('') }), []);
});

test.run();
