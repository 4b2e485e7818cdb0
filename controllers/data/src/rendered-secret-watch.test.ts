// Issue 21 points 0 and 4: what the rendered-Secret watch keeps and wakes, the IP pool mapping, and
// the template watch's filter that keeps the allocation side's ledger writes from waking anybody.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newSecret } from '@metal3-ts/generated/core/v1';
import { newIPPool } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import { admits } from '@metal3-ts/shared/controller/predicates';
import { DATA_BY_SECRET_INDEX, dataBySecret, type MapperStores, poolToDatas } from './mappers.ts';
import { changedBesidesStatus } from './predicates.ts';
import { metadataOnly, secretToDatas } from './rendered-secret-watch.ts';
import { data, DATA_UID, NS, template } from './testing.ts';

const test = suite('rendered-Secret watch');
const infra = 'infrastructure.cluster.x-k8s.io/v1beta1';

function datas(...objects: Metal3Data[]): ObjectStore<Metal3Data> {
  const store = new ObjectStore<Metal3Data>();
  store.addIndex(DATA_BY_SECRET_INDEX, dataBySecret);
  for (const o of objects) store.apply(o);
  return store;
}

test("only metadata is cached: the Secret's content never is", () => {
  const secret = newSecret({ metadata: { name: 's', namespace: NS, managedFields: [{}] }, data: { metaData: 'c2VjcmV0' }, stringData: { x: 'y' } });
  const kept = metadataOnly(secret);
  assert.is(kept.data, undefined);
  assert.is(kept.stringData, undefined);
  assert.is(kept.metadata.managedFields, undefined);
  assert.is(kept.metadata.name, 's');
});

test("a rendered Secret wakes its controller Metal3Data (even a former one's name) and any Metal3Data whose spec names it", () => {
  const named = data((d) => ((d.metadata.name = 'tmpl-1'), (d.spec!.metaData = { name: 'm3m-metadata', namespace: NS })));
  const store = datas(named);
  const owned = newSecret({
    metadata: {
      name: 'm3m-metadata',
      namespace: NS,
      ownerReferences: [{ apiVersion: infra, kind: 'Metal3Data', name: 'tmpl-0', uid: DATA_UID, controller: true }],
    },
  });
  assert.equal(secretToDatas(store, owned), [
    { namespace: NS, name: 'tmpl-0' },
    { namespace: NS, name: 'tmpl-1' },
  ]);
  const notOurs = newSecret({
    metadata: { name: 'other', namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u', controller: true }] },
  });
  assert.equal(secretToDatas(store, notOurs), []);
});

test('issue 21 point 4: an IP pool wakes the Metal3Data of its namespace still to be rendered', () => {
  const ready = data((d) => ((d.metadata.name = 'tmpl-1'), (d.status = { ready: true })));
  const stores = { datas: datas(data(), ready) } as unknown as MapperStores;
  assert.equal(poolToDatas(stores)(newIPPool({ metadata: { name: 'pool', namespace: NS }, spec: { namePrefix: 'pool' } })), [{
    namespace: NS,
    name: 'tmpl-0',
  }]);
  assert.equal(poolToDatas(stores)(newIPPool({ metadata: { name: 'pool', namespace: 'elsewhere' }, spec: { namePrefix: 'pool' } })), []);
});

test('issue 21 point 4: a template update of its status only (the ledger) passes no event; spec, labels and deletion do', () => {
  const old = template((t) => (t.metadata.resourceVersion = '1'));
  const ledger = template((t) => ((t.metadata.resourceVersion = '2'), (t.status = { indexes: { 'tmpl-0': 0 } })));
  assert.is(admits(changedBesidesStatus, { type: 'update', old, object: ledger }), false);
  assert.is(admits(changedBesidesStatus, { type: 'update', old, object: template((t) => (t.spec!.clusterName = 'c2')) }), true);
  assert.is(admits(changedBesidesStatus, { type: 'update', old, object: template((t) => (t.metadata.labels = { a: 'b' })) }), true);
  assert.is(admits(changedBesidesStatus, { type: 'update', old, object: template((t) => (t.metadata.deletionTimestamp = 'x')) }), true);
});

test.run();
