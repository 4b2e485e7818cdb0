// Issue 21 point 0: a former Metal3Data's Secret is waited for (the garbage collector deletes it)
// unless its controller, by uid, is still in the Metal3Data cache.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import { data, NS } from '../testing.ts';
import { judge, leftoverWait } from './rendered-secrets.ts';

const test = suite('rendered Secret state');
const owner = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'old', uid: 'old-uid', controller: true };

function cache(...objects: Metal3Data[]): ObjectStore<Metal3Data> {
  const store = new ObjectStore<Metal3Data>();
  for (const o of objects) store.apply(o);
  return store;
}
const named = (name: string, uid: string) => data((d) => ((d.metadata.name = name), (d.metadata.uid = uid)));

test('Missing, Ours and Foreign pass through', () => {
  assert.equal(judge({ kind: 'Missing' }, cache(), NS), { kind: 'Missing' });
  assert.equal(judge({ kind: 'Ours' }, cache(), NS), { kind: 'Ours' });
  assert.equal(judge({ kind: 'Foreign', reason: 'r' }, cache(), NS), { kind: 'Foreign', reason: 'r' });
});

test('D-12 (changed, issue 21): the former owner gone, or its name now held by another uid (re-created): a leftover to wait for', () => {
  assert.equal(judge({ kind: 'FormerData', owner }, cache(), NS), { kind: 'Leftover' });
  assert.equal(judge({ kind: 'FormerData', owner }, cache(named('old', 'new-uid')), NS), { kind: 'Leftover' });
});

test('issue 21: its owner (same uid) still cached: Foreign, named, never waited out', () => {
  assert.equal(judge({ kind: 'FormerData', owner }, cache(named('old', 'old-uid')), NS), {
    kind: 'Foreign',
    reason: 'it is controlled by Metal3Data old, which still exists',
  });
});

test('the wait names the Secret and who deletes it', () => {
  assert.is(leftoverWait('s'), 'Waiting for the garbage collector to delete Secret s of a former Metal3Data');
});

test.run();
