// D-20, E-18: which IP claims a deleted Metal3Data releases.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type IPClaim, newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { DATA_NAME_LABEL, METAL3_DATA_FINALIZER } from '../names.ts';
import { data, DATA_UID, NS } from '../testing.ts';
import { claimsToRelease } from './release.ts';

const test = suite('IP claim release');

const ref = (uid: string) => [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'tmpl-0', uid, controller: true }];
const claim = (name: string, meta: Partial<IPClaim['metadata']> = {}): IPClaim =>
  newIPClaim({ metadata: { name, namespace: NS, ...meta }, spec: { pool: { name: 'p' } } });

test('E-18 (fixed): every claim the Metal3Data owns, annotation-named pools included, once each, in name order', () => {
  const owned = [claim('tmpl-0-pool-b', { ownerReferences: ref(DATA_UID) }), claim('tmpl-0-from-annotation', { ownerReferences: ref(DATA_UID) })];
  const names = claimsToRelease(data(), [...owned, owned[0]!]).map((c) => c.metadata.name);
  assert.equal(names, ['tmpl-0-from-annotation', 'tmpl-0-pool-b']);
});

test('D-17/D-20: a preallocated claim labelled with the data name is released', () => {
  assert.equal(claimsToRelease(data(), [claim('host-pool-a', { labels: { [DATA_NAME_LABEL]: 'tmpl-0' } })]).map((c) => c.metadata.name), ['host-pool-a']);
});

test('claims of another Metal3Data, or in another namespace, are left alone', () => {
  const others = [
    claim('tmpl-0-pool-a', { ownerReferences: ref('other-uid') }),
    claim('host-pool-a', { labels: { [DATA_NAME_LABEL]: 'tmpl-1' } }),
    newIPClaim({ metadata: { name: 'x', namespace: 'elsewhere', ownerReferences: ref(DATA_UID) }, spec: { pool: { name: 'p' } } }),
  ];
  assert.equal(claimsToRelease(data(), others), []);
});

test('a claim already deleted and let go by our finalizer is done: releasing again does nothing', () => {
  const done = claim('tmpl-0-pool-a', { ownerReferences: ref(DATA_UID), deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['ipclaim.ipam.metal3.io'] });
  const held = claim('tmpl-0-pool-b', { ownerReferences: ref(DATA_UID), deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [METAL3_DATA_FINALIZER] });
  assert.equal(claimsToRelease(data(), [done, held]).map((c) => c.metadata.name), ['tmpl-0-pool-b']);
});

test.run();
