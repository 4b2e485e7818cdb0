// The Metal3Cluster controller on the real apiserver, beside the real Cluster API (its Cluster controller
// adopts the Metal3Cluster and copies its endpoint and failure domains back once it is ready). The
// controller runs as a user bound to exactly deploy/rbac.yaml. Test titles carry the research IDs.
import * as assert from 'uvu/assert';
import { type Cluster, ClusterResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import {
  clusterSuite,
  createCluster,
  createMetal3Cluster,
  ENDPOINT,
  eventsFor,
  eventually,
  metal3ClusterWhen,
  type RunningController,
  settled,
  startClusterController,
  v1,
  v2,
} from './support.ts';

const { test, env, admin, track } = clusterSuite('Metal3Cluster controller on the real apiserver');

const FINALIZER = 'metal3cluster.infrastructure.cluster.x-k8s.io';

let controller: RunningController | undefined;

async function setup(prefix: string, config = {}): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  controller = track(await startClusterController(env(), ns, config));
  return ns;
}

const clusterWhen = (ns: string, name: string, what: string, check: (c: Cluster) => boolean) =>
  eventually(what, async () => {
    const c = await admin().api(ClusterResource, ns).get(name);
    return check(c) ? c : undefined;
  });

test('C-2/C-4/C-12/C-14/C-7/W-2/E-2: adopted by its Cluster, a Metal3Cluster gets defaults, finalizer, ready and both condition sets; the Cluster takes endpoint and failure domains', async () => {
  const ns = await setup('m3c-ready');
  await createMetal3Cluster(admin(), ns, 'c1', {
    controlPlaneEndpoint: { host: ENDPOINT.host, port: 0 },
    failureDomains: { rack1: { controlPlane: true, attributes: { zone: 'a' } } },
  });
  await createCluster(admin(), ns, 'c1');
  const m3c = await metal3ClusterWhen(admin(), ns, 'c1', 'ready', (m) => m.status?.ready === true);
  assert.equal(m3c.metadata.finalizers, [FINALIZER]);
  assert.equal(m3c.spec?.controlPlaneEndpoint, { host: ENDPOINT.host, port: 6443 }, 'W-2: port 0 written back as 6443');
  assert.is(m3c.spec?.cloudProviderEnabled, true, 'W-2: neither flag set: cloud provider enabled');
  assert.is(m3c.spec?.noCloudProvider, false);
  assert.is(v1(m3c, 'BaremetalInfrastructureReady'), 'True//');
  assert.is(v1(m3c, 'Ready'), 'True//');
  assert.is(v2(m3c, 'BaremetalInfrastructureReady'), 'True/Ready');
  assert.is(v2(m3c, 'Ready'), 'True/Ready');
  assert.is(v2(m3c, 'Paused'), 'False/NotPaused');
  assert.is(getV1Beta2Condition(m3c, 'Paused')?.observedGeneration, m3c.metadata.generation);
  assert.ok(m3c.status?.lastUpdated, 'C-14: lastUpdated');
  assert.equal(m3c.status?.failureDomains, { rack1: { controlPlane: true, attributes: { zone: 'a' } } }, 'C-7');
  assert.is(m3c.status?.failureReason, undefined);

  const cluster = await clusterWhen(ns, 'c1', 'Cluster Provisioned', (c) => c.status?.phase === 'Provisioned');
  assert.equal(cluster.spec?.controlPlaneEndpoint, { host: ENDPOINT.host, port: 6443 }, 'the Cluster copied the defaulted endpoint');
  assert.is(cluster.status?.infrastructureReady, true);
  assert.equal(cluster.status?.failureDomains, { rack1: { controlPlane: true, attributes: { zone: 'a' } } });

  // A reconcile that finds nothing to change writes nothing (C-1 lets a label change through).
  await settled(controller!, 0);
  const writes = controller!.writes('metal3clusters');
  const reconciles = controller!.reconciles();
  await admin().api(Metal3ClusterResource, ns).mergePatch('c1', { metadata: { labels: { touched: 'yes' } } });
  await settled(controller!, reconciles);
  assert.is(controller!.writes('metal3clusters'), writes, 'no write for a reconcile with nothing new');
});

test('C-9/C-1: without an ownerReference the controller only defaults and waits; the Cluster adopting it starts the rest', async () => {
  const ns = await setup('m3c-noowner');
  await createMetal3Cluster(admin(), ns, 'lone', { controlPlaneEndpoint: ENDPOINT, noCloudProvider: true });
  const waiting = await metal3ClusterWhen(admin(), ns, 'lone', 'reconciled once', (m) => v2(m, 'Paused') !== '-');
  assert.is(waiting.spec?.cloudProviderEnabled, false, 'W-2/C-5: noCloudProvider=true means cloudProviderEnabled=false');
  assert.is(waiting.metadata.finalizers, undefined, 'no finalizer before the Cluster owns it');
  assert.is(waiting.status?.ready, undefined);
  assert.is(v2(waiting, 'Ready'), 'Unknown/ReadyUnknown');
  assert.is(v1(waiting, 'Ready'), '-');
  await createCluster(admin(), ns, 'lone');
  const ready = await metal3ClusterWhen(admin(), ns, 'lone', 'ready once adopted', (m) => m.status?.ready === true);
  assert.equal(ready.metadata.finalizers, [FINALIZER]);
});

test('C-8 (changed): an owner Cluster that does not exist is a wait with FailedToGetOwnerCluster, not a terminal failure; its appearance resumes', async () => {
  const ns = await setup('m3c-ghost');
  const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' };
  await createMetal3Cluster(admin(), ns, 'ghost', { controlPlaneEndpoint: ENDPOINT }, { ownerReferences: [owner] });
  const m3c = await metal3ClusterWhen(admin(), ns, 'ghost', 'FailedToGetOwnerCluster', (m) => v2(m, 'Ready') === 'False/FailedToGetOwnerCluster');
  assert.is(v1(m3c, 'BaremetalInfrastructureReady'), 'False/InternalFailureOccured/Error');
  assert.is(v1(m3c, 'Ready'), 'False/InternalFailureOccured/Error');
  assert.match(getV1Beta2Condition(m3c, 'Ready')?.message ?? '', /Unable to get owner cluster: Cluster .*\/ghost not found/);
  assert.is(m3c.status?.failureReason, undefined, 'not terminal: the Cluster would copy it and fail for good');
  assert.is(m3c.status?.failureMessage, undefined);
  assert.is(m3c.metadata.finalizers, undefined);
  const events = await eventually(
    'a FailedToGetOwnerCluster event',
    async () => ((await eventsFor(admin(), ns, 'ghost', 'FailedToGetOwnerCluster')).length > 0 ? true : undefined),
  );
  assert.ok(events);

  await createCluster(admin(), ns, 'ghost');
  const ready = await metal3ClusterWhen(admin(), ns, 'ghost', 'ready once the Cluster exists', (m) => m.status?.ready === true);
  assert.is(v2(ready, 'Ready'), 'True/Ready');
  assert.is(v1(ready, 'BaremetalInfrastructureReady'), 'True//');
  const cluster = await clusterWhen(ns, 'ghost', 'Cluster Provisioned', (c) => c.status?.phase === 'Provisioned');
  assert.is(cluster.status?.failureReason, undefined);
});

test('C-13 (changed)/E-14: an invalid endpoint is a condition naming the field, ready false, the Cluster not Failed; an edit fixes it, a later bad edit un-readies it', async () => {
  const ns = await setup('m3c-endpoint');
  await createMetal3Cluster(admin(), ns, 'bad', { controlPlaneEndpoint: { host: ENDPOINT.host, port: 70000 } });
  await createCluster(admin(), ns, 'bad');
  const m3c = await metal3ClusterWhen(
    admin(),
    ns,
    'bad',
    'ControlPlaneEndpointFailed',
    (m) => v2(m, 'BaremetalInfrastructureReady') === 'False/ControlPlaneEndpointFailed',
  );
  assert.is(v1(m3c, 'BaremetalInfrastructureReady'), 'False/ControlPlaneEndpointFailed/Error');
  assert.is(v1(m3c, 'Ready'), 'False/ControlPlaneEndpointFailed/Error');
  assert.is(v2(m3c, 'Ready'), 'False/NotReady');
  assert.match(getV1Beta2Condition(m3c, 'BaremetalInfrastructureReady')?.message ?? '', /^spec\.controlPlaneEndpoint\.port: Invalid value: 70000/);
  assert.is(m3c.status?.ready, false);
  assert.is(m3c.status?.failureReason, undefined);
  assert.equal(m3c.metadata.finalizers, [FINALIZER], 'C-12: the finalizer comes before validation');
  assert.is(m3c.spec?.cloudProviderEnabled, undefined, 'no defaults written over an invalid spec');
  const warnings = await eventually('a Warning event', async () => {
    const list = await eventsFor(admin(), ns, 'bad', 'ControlPlaneEndpointFailed');
    return list.length > 0 ? list : undefined;
  });
  assert.is(warnings[0]?.type, 'Warning');
  assert.match(warnings[0]?.message ?? '', /spec\.controlPlaneEndpoint\.port/);
  // Cluster API has read the not-ready Metal3Cluster: it waits (Provisioning), nothing copied to fail it.
  const waiting = await clusterWhen(ns, 'bad', 'the Cluster Provisioning', (c) => c.status?.phase === 'Provisioning');
  assert.is(waiting.status?.failureReason, undefined, 'the Cluster waits instead of failing');
  assert.ok(!waiting.status?.infrastructureReady, 'infrastructure not ready (v1.10 leaves the false out, v1.13 serves it)');
  // No endpoint taken: v1.13 stores v1beta2 and serves an unset endpoint as {host: '', port: 0} at v1beta1.
  assert.ok(!waiting.spec?.controlPlaneEndpoint?.host, 'no endpoint copied from an invalid spec');

  // The user fixes the port: ready, defaults written, the Cluster takes the endpoint.
  await admin().api(Metal3ClusterResource, ns).mergePatch('bad', { spec: { controlPlaneEndpoint: { port: 6443 } } });
  const fixed = await metal3ClusterWhen(admin(), ns, 'bad', 'ready after the fix', (m) => m.status?.ready === true);
  assert.is(v1(fixed, 'Ready'), 'True//');
  assert.is(fixed.spec?.cloudProviderEnabled, true);
  const cluster = await clusterWhen(ns, 'bad', 'Cluster Provisioned', (c) => c.status?.phase === 'Provisioned');
  assert.equal(cluster.spec?.controlPlaneEndpoint, ENDPOINT);

  // E-14 (fixed): a later invalid host makes it not ready again, with the host named.
  await admin().api(Metal3ClusterResource, ns).mergePatch('bad', { spec: { controlPlaneEndpoint: { host: 'https://192.168.111.249' } } });
  const broken = await metal3ClusterWhen(admin(), ns, 'bad', 'not ready again', (m) => m.status?.ready === false);
  assert.match(
    getV1Beta2Condition(broken, 'BaremetalInfrastructureReady')?.message ?? '',
    /^spec\.controlPlaneEndpoint\.host: Invalid value: "https:\/\/192\.168\.111\.249"/,
  );
  assert.is(broken.status?.failureReason, undefined);
});

test('C-10/§0.6 (changed): pausing by Cluster spec.paused or the annotation sets Paused True at once and freezes everything else; unpausing resumes', async () => {
  const ns = await setup('m3c-pause');
  await createMetal3Cluster(admin(), ns, 'p');
  await createCluster(admin(), ns, 'p');
  await metal3ClusterWhen(admin(), ns, 'p', 'ready', (m) => m.status?.ready === true);

  await admin().api(ClusterResource, ns).mergePatch('p', { spec: { paused: true } });
  const paused = await metal3ClusterWhen(admin(), ns, 'p', 'Paused True', (m) => v2(m, 'Paused') === 'True/Paused');
  assert.is(getV1Beta2Condition(paused, 'Paused')?.message, 'Cluster spec.paused is set to true');
  // While paused, a broken endpoint is not looked at.
  await admin().api(Metal3ClusterResource, ns).mergePatch('p', { spec: { controlPlaneEndpoint: { port: -5 } } });
  await settled(controller!, 0);
  assert.is((await admin().api(Metal3ClusterResource, ns).get('p')).status?.ready, true, 'paused: not reconciled');

  await admin().api(ClusterResource, ns).mergePatch('p', { spec: { paused: false } });
  const resumed = await metal3ClusterWhen(admin(), ns, 'p', 'reconciled after unpausing', (m) => m.status?.ready === false);
  assert.is(v2(resumed, 'Paused'), 'False/NotPaused');
  assert.is(v2(resumed, 'BaremetalInfrastructureReady'), 'False/ControlPlaneEndpointFailed');

  await admin().api(Metal3ClusterResource, ns).mergePatch('p', { metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } } });
  const annotated = await metal3ClusterWhen(admin(), ns, 'p', 'Paused by annotation', (m) => v2(m, 'Paused') === 'True/Paused');
  assert.is(getV1Beta2Condition(annotated, 'Paused')?.message, 'Metal3Cluster has the cluster.x-k8s.io/paused annotation');
  await admin().api(Metal3ClusterResource, ns).mergePatch('p', {
    metadata: { annotations: { 'cluster.x-k8s.io/paused': null } },
    spec: { controlPlaneEndpoint: { port: 6443 } },
  });
  const back = await metal3ClusterWhen(admin(), ns, 'p', 'ready after removing the annotation', (m) => m.status?.ready === true);
  assert.is(v2(back, 'Paused'), 'False/NotPaused');
});

test('C-3: an externally managed Metal3Cluster (cluster.x-k8s.io/managed-by) is never touched', async () => {
  const ns = await setup('m3c-managed');
  await createMetal3Cluster(admin(), ns, 'ext', { controlPlaneEndpoint: { host: ENDPOINT.host, port: 0 } }, {
    annotations: { 'cluster.x-k8s.io/managed-by': 'someone-else' },
  });
  await createCluster(admin(), ns, 'ext');
  await eventually(
    'adopted by the Cluster',
    async () => ((await admin().api(Metal3ClusterResource, ns).get('ext')).metadata.ownerReferences?.length ? true : undefined),
  );
  assert.is(controller!.writes(), 0, 'nothing written through creation and adoption');
  // A witness created after the adoption: once the controller has reconciled it, the watch has
  // delivered every earlier event of ext too (one stream, in order), and each was filtered out.
  await createMetal3Cluster(admin(), ns, 'witness', { controlPlaneEndpoint: ENDPOINT, noCloudProvider: true });
  await metal3ClusterWhen(admin(), ns, 'witness', 'the witness reconciled', (m) => v2(m, 'Paused') !== '-');
  await settled(controller!, 0);
  const m3c = await admin().api(Metal3ClusterResource, ns).get('ext');
  assert.is(m3c.metadata.finalizers, undefined);
  assert.is(m3c.status, undefined);
  assert.is(m3c.spec?.controlPlaneEndpoint?.port, 0, 'not even defaulted');
});

test('§0.6/F-1: with --watch-filter only Metal3Clusters carrying the watch-filter label are reconciled', async () => {
  const ns = await setup('m3c-filter', { watchFilter: 'team-a' });
  await createMetal3Cluster(admin(), ns, 'mine', { controlPlaneEndpoint: ENDPOINT }, { labels: { 'cluster.x-k8s.io/watch-filter': 'team-a' } });
  await createMetal3Cluster(admin(), ns, 'theirs', { controlPlaneEndpoint: ENDPOINT }, { labels: { 'cluster.x-k8s.io/watch-filter': 'team-b' } });
  await metal3ClusterWhen(admin(), ns, 'mine', 'mine reconciled', (m) => v2(m, 'Paused') !== '-');
  await settled(controller!, 0);
  assert.is((await admin().api(Metal3ClusterResource, ns).get('theirs')).status, undefined);
});

test.run();
