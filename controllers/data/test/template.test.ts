// The Metal3DataTemplate life cycle on the real apiserver (research DT-4…DT-8, E-43): the Cluster
// owner reference and the finalizer once the Cluster exists, nothing while paused, and a deletion
// that waits for the template's claims and Metal3Data and is woken by their deletion. Allocation is
// the dataclaim controller's and not running here: the tests create and delete claims and Metal3Data
// themselves. The controllers run as a user bound to exactly deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3DataTemplate,
  Metal3DataTemplateResource,
  newMetal3DataClaim,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import {
  CLUSTER,
  createCluster,
  createScene,
  createTemplate,
  DATA,
  dataSuite,
  eventually,
  gone,
  M3M,
  type RunningControllers,
  settled,
  startDataControllers,
  TEMPLATE,
  when,
} from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3DataTemplate life cycle on the real apiserver');

const FINALIZER = 'metal3datatemplate.infrastructure.cluster.x-k8s.io';
/** A second template whose handling orders the controller's progress (the paused test). */
const WITNESS = 'witness';

/** Template reconciles finished with `result` (the controller_runtime_reconcile_total label). */
function reconciled(result: 'success' | 'requeue_after'): number {
  const total = controllers!.registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  return total.get({ controller: 'metal3datatemplate', result });
}

let controllers: RunningControllers | undefined;

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controllers = track(await startDataControllers(env(), ns));
  return ns;
}

const templateWhen = (ns: string, what: string, check: (t: Metal3DataTemplate) => boolean, timeoutMs?: number) =>
  when(admin(), Metal3DataTemplateResource, ns, TEMPLATE, what, check, timeoutMs);

test("DT-5/DT-6/DT-8/E-43 (fixed): a template waits for its Cluster, then gets the Cluster reference (controller false) and its finalizer at the Cluster's creation", async () => {
  const ns = await setup('m3dt-cluster');
  const before = controllers!.reconciles();
  await createTemplate(admin(), ns);
  await settled(controllers!, before);
  const waiting = await admin().api(Metal3DataTemplateResource, ns).get(TEMPLATE);
  assert.is(waiting.metadata.finalizers, undefined);
  assert.is(waiting.metadata.ownerReferences, undefined);
  const other = { apiVersion: 'example.com/v1', kind: 'Thing', name: 'keep-me', uid: '00000000-0000-0000-0000-000000000001' };
  await admin().api(Metal3DataTemplateResource, ns).mergePatch(TEMPLATE, { metadata: { ownerReferences: [other] } });
  const cluster = await createCluster(admin(), ns);
  const template = await templateWhen(ns, 'finalizer', (t) => t.metadata.finalizers?.includes(FINALIZER) === true, 5_000);
  assert.equal(template.metadata.ownerReferences, [other, {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    name: 'cluster1',
    uid: cluster.metadata.uid!,
    controller: false,
  }]);
  assert.equal(template.metadata.finalizers, [FINALIZER]);
  assert.is(template.status, undefined, "the status is the allocation side's");
});

test('DT-6 (changed): a paused template gets nothing written; removing the annotation finishes it at once', async () => {
  const ns = await freshNamespace(env().admin.client, 'm3dt-paused');
  // One worker: the templates' events are handled in the order their watch delivers them.
  controllers = track(await startDataControllers(env(), ns, { templateConcurrency: 1 }));
  const cluster = await createCluster(admin(), ns);
  // The Cluster's own event must be behind the controllers before the templates exist, or (on a loaded
  // machine) it arrives late and maps to them: a reconcile that is not a template's event.
  const clusters = controllers.informers.informerFor(ClusterResource).store;
  await eventually("the Cluster in the controllers' cache", () => clusters.get({ namespace: ns, name: CLUSTER }));
  // The witness: a template with nothing left to write (its reference and finalizer made by hand)
  // that a claim will hold once deleted. Its deletion is the one event after the paused template's
  // that is reconciled, and the only reconcile ending in a requeue (DT-7's safety net).
  const reference = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: CLUSTER, uid: cluster.metadata.uid!, controller: false };
  await createTemplate(admin(), ns, undefined, WITNESS, { finalizers: [FINALIZER], ownerReferences: [reference] });
  await eventually('the witness reconciled', () => reconciled('success') >= 1 || undefined);
  const claims = controllers.informers.informerFor(Metal3DataClaimResource).store;
  await admin().api(Metal3DataClaimResource, ns).create(
    newMetal3DataClaim({ metadata: { name: 'holds-witness' }, spec: { template: { name: WITNESS, namespace: ns } } }),
  );
  await eventually("the witness's claim in the controllers' cache", () => claims.get({ namespace: ns, name: 'holds-witness' }));
  const before = reconciled('success');

  const paused = await createTemplate(admin(), ns, undefined, TEMPLATE, { annotations: { 'cluster.x-k8s.io/paused': '' } });
  await admin().api(Metal3DataTemplateResource, ns).delete(WITNESS);
  // Whatever the paused template's creation led to (nothing, or a reconcile queued before the
  // witness's) is done once the witness's deletion was reconciled.
  await eventually("the witness's deletion reconciled", () => reconciled('requeue_after') >= 1 || undefined);
  assert.is(reconciled('success'), before, 'events of a paused template are dropped');
  assert.is(controllers.writes('metal3datatemplates'), 0);
  assert.is((await admin().api(Metal3DataTemplateResource, ns).get(TEMPLATE)).metadata.resourceVersion, paused.metadata.resourceVersion);
  await admin().api(Metal3DataTemplateResource, ns).mergePatch(TEMPLATE, { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } });
  await templateWhen(ns, 'finalizer', (t) => t.metadata.finalizers?.includes(FINALIZER) === true, 5_000);
});

test('DT-6: a paused Cluster holds the template until it is unpaused', async () => {
  const ns = await setup('m3dt-clusterpaused');
  await createCluster(admin(), ns, undefined, true);
  const before = controllers!.reconciles();
  await createTemplate(admin(), ns);
  await settled(controllers!, before);
  assert.is(controllers!.writes('metal3datatemplates'), 0);
  await admin().api(ClusterResource, ns).mergePatch('cluster1', { spec: { paused: false } });
  await templateWhen(ns, 'finalizer', (t) => t.metadata.finalizers?.includes(FINALIZER) === true, 5_000);
});

test('DT-7 (changed): a deleted template waits for its live claims and every Metal3Data, woken by their deletion, then lets go', async () => {
  const ns = await setup('m3dt-delete');
  await createScene(admin(), ns);
  await templateWhen(ns, 'finalizer', (t) => t.metadata.finalizers?.includes(FINALIZER) === true);
  await when(admin(), Metal3DataResource, ns, DATA, 'rendered', (d) => d.status?.ready === true);

  let before = controllers!.reconciles();
  await admin().api(Metal3DataTemplateResource, ns).delete(TEMPLATE);
  await settled(controllers!, before);
  assert.ok((await admin().api(Metal3DataTemplateResource, ns).get(TEMPLATE)).metadata.finalizers?.includes(FINALIZER), 'held by the claim and the Metal3Data');

  // What the allocation side does when the claim goes: the Metal3Data is deleted, then the claim.
  before = controllers!.reconciles();
  await admin().api(Metal3DataClaimResource, ns).delete(M3M);
  await settled(controllers!, before);
  assert.ok((await admin().api(Metal3DataTemplateResource, ns).get(TEMPLATE)).metadata.finalizers?.includes(FINALIZER), 'still held by the Metal3Data');
  const start = performance.now();
  await admin().api(Metal3DataResource, ns).delete(DATA);
  await gone(admin(), Metal3DataResource, ns, DATA, 5_000);
  await gone(admin(), Metal3DataTemplateResource, ns, TEMPLATE, 5_000);
  assert.ok(performance.now() - start < 5_000, "woken by the Metal3Data's deletion, not the 120 s safety net");
});

test('DT-7: a template nobody uses is deleted at once', async () => {
  const ns = await setup('m3dt-unused');
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns);
  await templateWhen(ns, 'finalizer', (t) => t.metadata.finalizers?.includes(FINALIZER) === true);
  await admin().api(Metal3DataTemplateResource, ns).delete(TEMPLATE);
  await gone(admin(), Metal3DataTemplateResource, ns, TEMPLATE, 5_000);
});

test.run();
