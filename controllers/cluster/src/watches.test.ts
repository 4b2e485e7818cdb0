// C-1, C-2, C-3, §0.6, E-20: the event filters and map functions of the controller's watches.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { type Cluster, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Cluster, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import { admits, type Predicate } from '@metal3-ts/shared/controller/predicates';
import { clusterToMetal3Cluster, memberByCluster, memberToDeletingMetal3Clusters, METAL3_CLUSTER_BY_CLUSTER_INDEX, metal3ClusterByCluster } from './mappers.ts';
import { clusterPauseTransitions, metal3ClusterChanged, metal3ClusterEventFilter, onlyDeletes } from './predicates.ts';

const test = suite('Metal3Cluster watches: filters and mappings');

const m3c = (name: string, extra: Partial<Metal3Cluster['metadata']> = {}): Metal3Cluster =>
  newMetal3Cluster({ metadata: { name, namespace: 'ns', resourceVersion: '1', ...extra }, spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } } });

const update = <T extends KubeObject>(p: Predicate<T>, old: T, obj: T) => admits(p, { type: 'update', old, object: obj });
const create = <T extends KubeObject>(p: Predicate<T>, obj: T) => admits(p, { type: 'add', object: obj });
const remove = <T extends KubeObject>(p: Predicate<T>, obj: T) => admits(p, { type: 'delete', object: obj });

test('C-1: status-only and resourceVersion-only updates are ignored; metadata and spec changes pass', () => {
  const old = m3c('a');
  const statusOnly = { ...structuredClone(old), status: { ready: true } };
  statusOnly.metadata.resourceVersion = '2';
  assert.not.ok(update(metal3ClusterChanged, old, statusOnly));
  const labelled = structuredClone(old);
  labelled.metadata.labels = { x: 'y' };
  assert.ok(update(metal3ClusterChanged, old, labelled));
  const owned = structuredClone(old);
  owned.metadata.ownerReferences = [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c', uid: 'u' }];
  assert.ok(update(metal3ClusterChanged, old, owned));
  const respec = structuredClone(old);
  respec.spec!.controlPlaneEndpoint!.port = 7443;
  assert.ok(update(metal3ClusterChanged, old, respec));
  assert.ok(create(metal3ClusterChanged, old));
  assert.ok(remove(metal3ClusterChanged, old));
});

test('C-3, §0.6: externally managed objects are dropped; the watch-filter label is required when set', () => {
  const filter = metal3ClusterEventFilter('');
  assert.ok(create(filter, m3c('a')));
  assert.not.ok(create(filter, m3c('a', { annotations: { 'cluster.x-k8s.io/managed-by': '' } })));
  const labelled = metal3ClusterEventFilter('team-a');
  assert.not.ok(create(labelled, m3c('a')));
  assert.not.ok(create(labelled, m3c('a', { labels: { 'cluster.x-k8s.io/watch-filter': 'team-b' } })));
  assert.ok(create(labelled, m3c('a', { labels: { 'cluster.x-k8s.io/watch-filter': 'team-a' } })));
});

test('§0.6 (changed): events of a paused object are dropped, except the update that pauses it', () => {
  const filter = metal3ClusterEventFilter('');
  const paused = m3c('a', { annotations: { 'cluster.x-k8s.io/paused': '' } });
  const running = m3c('a');
  assert.not.ok(create(filter, paused));
  assert.not.ok(remove(filter, paused));
  assert.not.ok(update(filter, paused, paused), 'still paused');
  assert.ok(update(filter, running, paused), 'the pausing update');
  assert.ok(update(filter, paused, running), 'the unpausing update');
});

test('E-20 (kept): the filter judges the source object of mapped watches: a paused or unlabelled Cluster wakes nothing', () => {
  const running = newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: {} });
  const annotated = newCluster({ metadata: { name: 'c1', namespace: 'ns', annotations: { 'cluster.x-k8s.io/paused': '' } }, spec: {} });
  assert.ok(create(metal3ClusterEventFilter(''), running));
  assert.not.ok(create(metal3ClusterEventFilter(''), annotated));
  assert.not.ok(create(metal3ClusterEventFilter('team-a'), running), 'with --watch-filter the Cluster needs the label too');
});

const cluster = (infra: { apiVersion?: string; kind?: string; name?: string } | undefined, paused?: boolean): Cluster =>
  newCluster({
    metadata: { name: 'c1', namespace: 'ns' },
    spec: { ...(infra ? { infrastructureRef: infra } : {}), ...(paused === undefined ? {} : { paused }) },
  });

test('C-2: ClusterUnpaused (create when running, update when unpausing) plus the pausing update; never deletes', () => {
  const p = clusterPauseTransitions;
  assert.ok(create(p, cluster(undefined)));
  assert.ok(create(p, cluster(undefined, false)));
  assert.not.ok(create(p, cluster(undefined, true)));
  assert.ok(update(p, cluster(undefined, true), cluster(undefined, false)));
  assert.ok(update(p, cluster(undefined, false), cluster(undefined, true)), 'pausing (changed)');
  assert.not.ok(update(p, cluster(undefined, false), cluster(undefined, false)));
  assert.not.ok(update(p, cluster(undefined, true), cluster(undefined, true)));
  assert.not.ok(remove(p, cluster(undefined)));
});

test('C-2: a Cluster maps to its infrastructureRef Metal3Cluster only if it exists, is ours and is not externally managed', () => {
  const store = new ObjectStore<Metal3Cluster>();
  store.apply(m3c('infra'));
  store.apply(m3c('managed', { annotations: { 'cluster.x-k8s.io/managed-by': 'x' } }));
  const map = clusterToMetal3Cluster(store);
  const ref = (name: string, apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta1', kind = 'Metal3Cluster') => cluster({ apiVersion, kind, name });
  assert.equal(map(ref('infra')), [{ namespace: 'ns', name: 'infra' }]);
  assert.equal(map(ref('infra', 'infrastructure.cluster.x-k8s.io/v1beta2')), [{ namespace: 'ns', name: 'infra' }], 'any version');
  assert.equal(map(ref('missing')), []);
  assert.equal(map(ref('managed')), []);
  assert.equal(map(ref('infra', 'infrastructure.cluster.x-k8s.io/v1beta1', 'DockerCluster')), []);
  assert.equal(map(ref('infra', 'example.com/v1')), []);
  assert.equal(map(cluster(undefined)), []);
});

test('C-11 (changed): a deleted Machine or Metal3Machine wakes the deleting Metal3Clusters of its cluster only', () => {
  const store = new ObjectStore<Metal3Cluster>();
  store.addIndex(METAL3_CLUSTER_BY_CLUSTER_INDEX, metal3ClusterByCluster);
  const owner = [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'u' }];
  store.apply(m3c('deleting', { ownerReferences: owner, deletionTimestamp: '2025-01-01T00:00:00Z' }));
  store.apply(m3c('running', { ownerReferences: owner }));
  store.apply(m3c('by-label', { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, deletionTimestamp: '2025-01-01T00:00:00Z' }));
  const map = memberToDeletingMetal3Clusters(store);
  const machine = (labels: Record<string, string>, namespace = 'ns') =>
    newMachine({ metadata: { name: 'm', namespace, labels }, spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: {} } });
  assert.equal(
    map(machine({ 'cluster.x-k8s.io/cluster-name': 'c1' })).map((r) => r.name).sort(),
    ['by-label', 'deleting'],
  );
  assert.equal(map(machine({ 'cluster.x-k8s.io/cluster-name': 'c2' })), []);
  assert.equal(map(machine({ 'cluster.x-k8s.io/cluster-name': 'c1' }, 'other')), [], 'namespaces never mix');
  assert.equal(memberByCluster(machine({})), []);
  assert.ok(remove(onlyDeletes, machine({})));
  assert.not.ok(create(onlyDeletes, machine({})));
  assert.not.ok(update(onlyDeletes, machine({}), machine({})));
});

test.run();
