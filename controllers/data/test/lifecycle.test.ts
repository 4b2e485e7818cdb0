// Guards of the Metal3Data controller on the real apiserver (research D-6, E-42): the Cluster that
// does not exist yet, pausing by Cluster or annotation, the missing cluster-name label; each ended by
// the event that fixes it, never by polling. The controllers run under deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3DataResource, newMetal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import type { DataControllersConfig } from '../src/controller.ts';
import { createCluster, createScene, DATA, dataSuite, dataWhen, gone, type RunningControllers, settled, startDataControllers, TEMPLATE } from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data guards on the real apiserver');

let controllers: RunningControllers | undefined;

async function setup(prefix: string, config: DataControllersConfig = {}): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controllers = track(await startDataControllers(env(), ns, config));
  return ns;
}

const PAUSED = 'cluster.x-k8s.io/paused';

test("D-6 (changed): without its Cluster a Metal3Data is left alone; the Cluster's creation renders it at once", async () => {
  const ns = await setup('m3d-nocluster');
  const before = controllers!.reconciles();
  await createScene(admin(), ns, { without: ['cluster'] });
  await settled(controllers!, before);
  const waiting = await admin().api(Metal3DataResource, ns).get(DATA);
  assert.is(waiting.metadata.finalizers, undefined, 'no finalizer before the Cluster exists');
  assert.is(waiting.status, undefined);
  await createCluster(admin(), ns);
  await dataWhen(admin(), ns, DATA, 'ready once the Cluster exists', (d) => d.status?.ready === true, 5_000);
});

test('D-6 (changed): a paused Cluster stops everything; unpausing renders at once', async () => {
  const ns = await setup('m3d-clusterpaused');
  await createCluster(admin(), ns, undefined, true);
  const before = controllers!.reconciles();
  await createScene(admin(), ns, { without: ['cluster'] });
  await settled(controllers!, before);
  assert.is(controllers!.writes(), 0, 'nothing written while paused');
  await admin().api(ClusterResource, ns).mergePatch('cluster1', { spec: { paused: false } });
  await dataWhen(admin(), ns, DATA, 'ready once unpaused', (d) => d.status?.ready === true, 5_000);
});

test('D-6/§0.6: the paused annotation stops everything; removing it renders at once', async () => {
  const ns = await setup('m3d-annotated');
  await createScene(admin(), ns, { without: ['data'] });
  await admin().api(Metal3DataResource, ns).create(
    newMetal3Data({
      metadata: { name: DATA, labels: { 'cluster.x-k8s.io/cluster-name': 'cluster1' }, annotations: { [PAUSED]: '' } },
      spec: { index: 0, template: { name: TEMPLATE, namespace: ns }, claim: { name: 'baremetal-testmetal3machine', namespace: ns } },
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await admin().api(Metal3DataResource, ns).get(DATA)).metadata.finalizers, undefined, 'no event of a paused object is handled');
  await admin().api(Metal3DataResource, ns).jsonPatch(DATA, [{ op: 'remove', path: `/metadata/annotations/${PAUSED.replace('/', '~1')}` }]);
  await dataWhen(admin(), ns, DATA, 'ready once unpaused', (d) => d.status?.ready === true, 5_000);
});

test('E-42 (fixed): a Metal3Data without the cluster-name label says so; adding the label renders at once', async () => {
  const ns = await setup('m3d-nolabel');
  await createScene(admin(), ns, { without: ['data'] });
  await admin().api(Metal3DataResource, ns).create(
    newMetal3Data({
      metadata: { name: DATA },
      spec: { index: 0, template: { name: TEMPLATE, namespace: ns }, claim: { name: 'baremetal-testmetal3machine', namespace: ns } },
    }),
  );
  const failing = await dataWhen(admin(), ns, DATA, 'errorMessage', (d) => d.status?.errorMessage !== undefined);
  assert.is(failing.status?.errorMessage, 'Metal3Data has no cluster.x-k8s.io/cluster-name label: it cannot be associated with a Cluster');
  await admin().api(Metal3DataResource, ns).mergePatch(DATA, { metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'cluster1' } } });
  const ready = await dataWhen(admin(), ns, DATA, 'ready', (d) => d.status?.ready === true, 5_000);
  assert.is(ready.status?.errorMessage, undefined);
});

test('§0.6/D-4: with --watch-filter only labelled Metal3Data are handled; labelling one hands it over', async () => {
  const ns = await setup('m3d-watchfilter', { watchFilter: 'mine' });
  await createScene(admin(), ns);
  await new Promise((r) => setTimeout(r, 500));
  assert.is(controllers!.reconciles('metal3data'), 0, 'no event of an unlabelled object is handled');
  assert.is((await admin().api(Metal3DataResource, ns).get(DATA)).metadata.finalizers, undefined);
  await admin().api(Metal3DataResource, ns).mergePatch(DATA, { metadata: { labels: { 'cluster.x-k8s.io/watch-filter': 'mine' } } });
  await dataWhen(admin(), ns, DATA, 'ready once labelled', (d) => d.status?.ready === true, 5_000);
});

test('D-9 step 4/E-49 (fixed): a Metal3Data naming no claim reports it, and its deletion still releases and lets go', async () => {
  const ns = await setup('m3d-noclaim');
  await createScene(admin(), ns, { without: ['data'] });
  await admin().api(Metal3DataResource, ns).create(
    newMetal3Data({
      metadata: { name: DATA, labels: { 'cluster.x-k8s.io/cluster-name': 'cluster1' } },
      spec: { index: 0, template: { name: TEMPLATE, namespace: ns }, claim: { name: '' } },
    }),
  );
  const failing = await dataWhen(admin(), ns, DATA, 'errorMessage', (d) => d.status?.errorMessage !== undefined);
  assert.is(failing.status?.errorMessage, 'spec.claim.name: Metal3DataClaim name not set');
  assert.ok(failing.metadata.finalizers?.includes('metal3data.infrastructure.cluster.x-k8s.io'));
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await gone(admin(), Metal3DataResource, ns, DATA, 5_000);
});

test.run();
