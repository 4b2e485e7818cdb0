import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ObjectMeta } from '@metal3-ts/generated';
import { type Cluster, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { CacheEvent } from '../cache/types.ts';
import {
  admits,
  and,
  clusterUnpaused,
  generationChanged,
  hasWatchFilterLabel,
  not,
  or,
  type Predicate,
  resourceNotExternallyManaged,
  resourceNotPaused,
  resourceNotPausedAndHasFilterLabel,
} from './predicates.ts';

const test = suite('predicates');

const obj = (metadata: Partial<ObjectMeta> = {}): KubeObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  metadata: { namespace: 'ns', name: 'm', ...metadata },
});
const add = <T extends KubeObject>(object: T): CacheEvent<T> => ({ type: 'add', object });
const update = <T extends KubeObject>(old: T, object: T): CacheEvent<T> => ({ type: 'update', old, object });
const del = <T extends KubeObject>(object: T): CacheEvent<T> => ({ type: 'delete', object });

interface Row<T extends KubeObject> {
  readonly id: string;
  readonly predicate: Predicate<T>;
  readonly event: CacheEvent<T>;
  readonly passes: boolean;
}

function table<T extends KubeObject>(title: string, rows: Row<T>[]): void {
  test(title, () => {
    for (const row of rows) assert.is(admits(row.predicate, row.event), row.passes, row.id);
  });
}

const paused = { annotations: { 'cluster.x-k8s.io/paused': '' } };
const labelled = (v: string) => ({ labels: { 'cluster.x-k8s.io/watch-filter': v } });

table('generationChanged: updates pass only on a generation change; creates and deletes pass', [
  { id: 'create', predicate: generationChanged, event: add(obj({ generation: 1 })), passes: true },
  { id: 'delete', predicate: generationChanged, event: del(obj({ generation: 3 })), passes: true },
  { id: 'spec change bumps generation', predicate: generationChanged, event: update(obj({ generation: 1 }), obj({ generation: 2 })), passes: true },
  {
    id: 'status-only write keeps generation',
    predicate: generationChanged,
    event: update(obj({ generation: 2, resourceVersion: '5' }), obj({ generation: 2, resourceVersion: '6' })),
    passes: false,
  },
  {
    id: 'label change keeps generation',
    predicate: generationChanged,
    event: update(obj({ generation: 2 }), obj({ generation: 2, labels: { a: 'b' } })),
    passes: false,
  },
]);

table('0.6 resourceNotPaused: the paused annotation (any value, even empty) drops every event', [
  { id: '0.6 create unpaused', predicate: resourceNotPaused, event: add(obj()), passes: true },
  { id: '0.6 create paused ""', predicate: resourceNotPaused, event: add(obj(paused)), passes: false },
  { id: '0.6 create paused "true"', predicate: resourceNotPaused, event: add(obj({ annotations: { 'cluster.x-k8s.io/paused': 'true' } })), passes: false },
  { id: '0.6 update to paused (new object decides)', predicate: resourceNotPaused, event: update(obj(), obj(paused)), passes: false },
  { id: '0.6 update to unpaused', predicate: resourceNotPaused, event: update(obj(paused), obj()), passes: true },
  { id: '0.6 delete paused', predicate: resourceNotPaused, event: del(obj(paused)), passes: false },
  { id: '0.6 other annotation', predicate: resourceNotPaused, event: add(obj({ annotations: { 'baremetalhost.metal3.io/paused': '' } })), passes: true },
]);

table('0.6 hasWatchFilterLabel: empty value passes everything, otherwise the label must equal the value', [
  { id: '0.6 no filter, no label', predicate: hasWatchFilterLabel(''), event: add(obj()), passes: true },
  { id: '0.6 no filter, other label value', predicate: hasWatchFilterLabel(''), event: del(obj(labelled('x'))), passes: true },
  { id: '0.6 filter, matching label', predicate: hasWatchFilterLabel('blue'), event: add(obj(labelled('blue'))), passes: true },
  { id: '0.6 filter, no label', predicate: hasWatchFilterLabel('blue'), event: add(obj()), passes: false },
  { id: '0.6 filter, other value', predicate: hasWatchFilterLabel('blue'), event: del(obj(labelled('green'))), passes: false },
  { id: '0.6 filter, label removed by update', predicate: hasWatchFilterLabel('blue'), event: update(obj(labelled('blue')), obj()), passes: false },
]);

const common = resourceNotPausedAndHasFilterLabel('blue');
table('0.6/E-20 the common filter judges the event object, including mapped source objects', [
  { id: '0.6 labelled, not paused', predicate: common, event: add(obj(labelled('blue'))), passes: true },
  { id: '0.6 labelled and paused', predicate: common, event: add(obj({ ...labelled('blue'), ...paused })), passes: false },
  {
    id: 'E-20 a BareMetalHost without the watch label',
    predicate: common,
    event: update({ ...obj(), kind: 'BareMetalHost' }, { ...obj(), kind: 'BareMetalHost' }),
    passes: false,
  },
  { id: 'E-20 a paused Cluster source', predicate: common, event: add({ ...obj({ ...labelled('blue'), ...paused }), kind: 'Cluster' }), passes: false },
  { id: '0.6 empty watch filter: pause only', predicate: resourceNotPausedAndHasFilterLabel(''), event: add(obj()), passes: true },
]);

table('C-3 resourceNotExternallyManaged drops objects with the managed-by annotation', [
  { id: 'C-3 unmanaged', predicate: resourceNotExternallyManaged, event: add(obj()), passes: true },
  {
    id: 'C-3 managed-by',
    predicate: resourceNotExternallyManaged,
    event: add(obj({ annotations: { 'cluster.x-k8s.io/managed-by': 'other' } })),
    passes: false,
  },
]);

const cluster = (paused?: boolean): Cluster => newCluster({ metadata: { namespace: 'ns', name: 'c' }, spec: paused === undefined ? {} : { paused } });
table<Cluster>('C-2 clusterUnpaused: create when not paused, update only on true → false, never delete', [
  { id: 'C-2 create, paused unset', predicate: clusterUnpaused, event: add(cluster()), passes: true },
  { id: 'C-2 create, paused false', predicate: clusterUnpaused, event: add(cluster(false)), passes: true },
  { id: 'C-2 create, paused true', predicate: clusterUnpaused, event: add(cluster(true)), passes: false },
  { id: 'C-2 create, no spec', predicate: clusterUnpaused, event: add(newCluster({ metadata: { name: 'c' } })), passes: true },
  { id: 'C-2 update true → false', predicate: clusterUnpaused, event: update(cluster(true), cluster(false)), passes: true },
  { id: 'C-2 update true → unset', predicate: clusterUnpaused, event: update(cluster(true), cluster()), passes: true },
  { id: 'C-2 update false → false', predicate: clusterUnpaused, event: update(cluster(false), cluster(false)), passes: false },
  { id: 'C-2 update false → true', predicate: clusterUnpaused, event: update(cluster(false), cluster(true)), passes: false },
  { id: 'C-2 update true → true', predicate: clusterUnpaused, event: update(cluster(true), cluster(true)), passes: false },
  { id: 'C-2 delete', predicate: clusterUnpaused, event: del(cluster()), passes: false },
]);

const yes: Predicate = { create: () => true, update: () => true, delete: () => true };
const no: Predicate = { create: () => false, update: () => false, delete: () => false };
const createOnly: Predicate = { update: () => false, delete: () => false };
table('combinators: and, or, not; a missing method passes', [
  { id: 'and(yes, no)', predicate: and(yes, no), event: add(obj()), passes: false },
  { id: 'and(yes, {})', predicate: and(yes, {}), event: add(obj()), passes: true },
  { id: 'and()', predicate: and(), event: del(obj()), passes: true },
  { id: 'or(no, yes)', predicate: or(no, yes), event: update(obj(), obj()), passes: true },
  { id: 'or(no, no)', predicate: or(no, no), event: add(obj()), passes: false },
  { id: 'or(no, {})', predicate: or(no, {}), event: add(obj()), passes: true },
  { id: 'or()', predicate: or(), event: add(obj()), passes: false },
  { id: 'not(no)', predicate: not(no), event: add(obj()), passes: true },
  { id: 'not({}) drops', predicate: not({}), event: add(obj()), passes: false },
  { id: 'not(createOnly) on create', predicate: not(createOnly), event: add(obj()), passes: false },
  { id: 'not(createOnly) on delete', predicate: not(createOnly), event: del(obj()), passes: true },
  {
    id: 'and(generationChanged, resourceNotPaused) on a paused spec change',
    predicate: and(generationChanged, resourceNotPaused),
    event: update(obj({ generation: 1 }), obj({ generation: 2, ...paused })),
    passes: false,
  },
]);

test.run();
