// C-11 (changed), E-13 (fixed) on the real apiserver: a deleted Metal3Cluster keeps its finalizer
// while Machines or Metal3Machines labelled with its cluster name remain, and lets go as soon as the
// last one is gone (a watch, not the 30 s poll: the controller here polls only every 120 s).
import * as assert from 'uvu/assert';
import { MachineResource, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { clusterSuite, createCluster, createMetal3Cluster, ENDPOINT, gone, metal3ClusterWhen, settled, startClusterController, v2 } from './support.ts';

const { test, env, admin, track } = clusterSuite('Metal3Cluster deletion on the real apiserver');

const FINALIZER = 'metal3cluster.infrastructure.cluster.x-k8s.io';
const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

function createMetal3Machine(ns: string, name: string, cluster: string) {
  return admin().api(Metal3MachineResource, ns).create(newMetal3Machine({ metadata: { name, labels: { [CLUSTER_NAME]: cluster } }, spec: { image } }));
}

function createMachine(ns: string, name: string, cluster: string) {
  return admin().api(MachineResource, ns).create(
    newMachine({
      metadata: { name, labels: { [CLUSTER_NAME]: cluster } },
      spec: {
        clusterName: cluster,
        bootstrap: { dataSecretName: 'none' },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
      },
    }),
  );
}

test('C-11 (changed): deletion waits for the Machines and Metal3Machines labelled with the cluster name, then removes the finalizer at once', async () => {
  const ns = await freshNamespace(env().admin.client, 'm3c-delete');
  const controller = track(await startClusterController(env(), ns));
  await createMetal3Cluster(admin(), ns, 'c1');
  await createCluster(admin(), ns, 'c1');
  await metal3ClusterWhen(admin(), ns, 'c1', 'ready', (m) => m.status?.ready === true);
  await createMetal3Machine(ns, 'worker-0', 'c1');
  await createMachine(ns, 'worker-0', 'c1');
  await createMetal3Machine(ns, 'other-cluster', 'c2');

  await admin().api(Metal3ClusterResource, ns).delete('c1');
  const deleting = await metal3ClusterWhen(admin(), ns, 'c1', 'Ready False/Deleting', (m) => v2(m, 'Ready') === 'False/Deleting');
  assert.equal(deleting.metadata.finalizers, [FINALIZER]);
  assert.is(getV1Beta2Condition(deleting, 'Ready')?.message, 'Waiting for 1 Machine (worker-0) and 1 Metal3Machine (worker-0) of Cluster c1 to be deleted');

  await admin().api(Metal3MachineResource, ns).delete('worker-0');
  await metal3ClusterWhen(
    admin(),
    ns,
    'c1',
    'still waiting for the Machine',
    (m) => getV1Beta2Condition(m, 'Ready')?.message === 'Waiting for 1 Machine (worker-0) of Cluster c1 to be deleted',
  );
  // Nothing left for the controller to do until the Machine goes: once it is quiet, the finalizer holds.
  await settled(controller, 0);
  assert.equal((await admin().api(Metal3ClusterResource, ns).get('c1')).metadata.finalizers, [FINALIZER]);

  const deletedAt = performance.now();
  await admin().api(MachineResource, ns).delete('worker-0');
  await gone(admin(), Metal3ClusterResource, ns, 'c1', 5000);
  const tookMs = performance.now() - deletedAt;
  assert.ok(tookMs < 5000, `finalizer removed ${tookMs.toFixed(0)} ms after the last machine went, not at the next poll`);
  assert.ok(await admin().api(Metal3MachineResource, ns).get('other-cluster'), 'machines of other clusters are not waited for, nor touched');
});

test('E-13 (fixed): a Metal3Cluster whose owner Cluster is gone, or that never had an owner, can still be deleted', async () => {
  const ns = await freshNamespace(env().admin.client, 'm3c-orphan');
  track(await startClusterController(env(), ns));
  const ghost = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'ghost', uid: '00000000-0000-0000-0000-000000000002' };
  await createMetal3Cluster(admin(), ns, 'orphan', { controlPlaneEndpoint: ENDPOINT }, { ownerReferences: [ghost], finalizers: [FINALIZER] });
  await createMetal3Cluster(admin(), ns, 'unowned', { controlPlaneEndpoint: ENDPOINT }, { labels: { [CLUSTER_NAME]: 'gone' }, finalizers: [FINALIZER] });
  await createMetal3Machine(ns, 'left-over', 'gone');
  await metal3ClusterWhen(admin(), ns, 'orphan', 'FailedToGetOwnerCluster', (m) => v2(m, 'Ready') === 'False/FailedToGetOwnerCluster');

  await admin().api(Metal3ClusterResource, ns).delete('orphan');
  await gone(admin(), Metal3ClusterResource, ns, 'orphan', 5000);

  // Without an owner the cluster-name label still names the machines to wait for.
  await admin().api(Metal3ClusterResource, ns).delete('unowned');
  await metal3ClusterWhen(admin(), ns, 'unowned', 'waiting for the labelled machine', (m) => v2(m, 'Ready') === 'False/Deleting');
  await admin().api(Metal3MachineResource, ns).delete('left-over');
  await gone(admin(), Metal3ClusterResource, ns, 'unowned', 5000);
});

test.run();
