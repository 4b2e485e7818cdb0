// A write the apiserver refuses reaches the object and the error metrics (issue 16): the controller
// runs as a user bound to deploy/rbac.yaml without `patch metal3clusters` (its spec defaults,
// finalizer and finalizer removal); the refusal shows on BaremetalInfrastructureReady in both
// dialects naming verb and resource, as a Warning event, and in
// controller_runtime_reconcile_errors_total. The status patch (`metal3clusters/status`) still works.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import * as assert from 'uvu/assert';
import { Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { CONTROLLER_NAME } from '../src/controller.ts';
import {
  createMetal3Cluster,
  ENDPOINT,
  eventsFor,
  eventually,
  metal3ClusterWhen,
  RBAC_MANIFEST,
  type RunningController,
  startClusterController,
  v2,
} from './support.ts';

const { test, env, admin, track, namespace } = controllerSuite<RunningController>('Metal3Cluster controller: refused writes');

const FINALIZER = 'metal3cluster.infrastructure.cluster.x-k8s.io';
const REFUSED = 'patch metal3clusters.infrastructure.cluster.x-k8s.io refused: 403 Forbidden';

/** deploy/rbac.yaml without `patch` on metal3clusters, under a ClusterRole name of its own (the shared one stays intact). */
function rbacWithoutPatch(): string {
  const manifest = readFileSync(RBAC_MANIFEST, 'utf8');
  const rule = '    resources: [metal3clusters]\n    verbs: [get, list, watch, patch]';
  assert.ok(manifest.includes(rule), 'deploy/rbac.yaml grants patch on metal3clusters in the expected rule');
  const path = join(tmpdir(), `metal3-ts-cluster-rbac-no-patch-${process.pid}.yaml`);
  writeFileSync(
    path,
    manifest.replace(rule, '    resources: [metal3clusters]\n    verbs: [get, list, watch]').replaceAll(
      'metal3-ts-cluster-manager',
      'metal3-ts-cluster-manager-no-patch',
    ),
  );
  return path;
}

const errorsTotal = (c: RunningController) =>
  c.registry.counter('controller_runtime_reconcile_errors_total', '', ['controller']).get({ controller: CONTROLLER_NAME });

test('issue 16: a refused spec-defaults write and a refused finalizer removal reach BaremetalInfrastructureReady (both dialects), a Warning event and controller_runtime_reconcile_errors_total', async () => {
  const ns = await namespace('m3c-refused');
  const rbac = rbacWithoutPatch();
  // The manifest is applied as the controller starts; it need not outlive that.
  const controller = track(await startClusterController(env(), ns, {}, rbac).finally(() => rmSync(rbac, { force: true })));

  // W-2: the cloud flags need writing; the write is refused.
  await createMetal3Cluster(admin(), ns, 'lone', { controlPlaneEndpoint: ENDPOINT });
  const refused = await metal3ClusterWhen(
    admin(),
    ns,
    'lone',
    'the refusal on BaremetalInfrastructureReady',
    (m) => v2(m, 'BaremetalInfrastructureReady') === 'False/InternalError',
  );
  assert.match(getV1Beta2Condition(refused, 'BaremetalInfrastructureReady')?.message ?? '', REFUSED);
  const v1 = getCondition(refused, 'BaremetalInfrastructureReady');
  assert.equal([v1?.status, v1?.reason, v1?.severity], ['False', 'InternalFailureOccured', 'Error']);
  assert.match(v1?.message ?? '', REFUSED);
  assert.is(refused.spec?.cloudProviderEnabled, undefined, 'nothing was written to the spec');
  await eventually('a RequestRefused Warning event naming verb and resource', async () => {
    const events = await eventsFor(admin(), ns, 'lone', 'RequestRefused');
    return events.some((e) => e.type === 'Warning' && e.message?.includes(REFUSED)) ? true : undefined;
  });
  await eventually('the failed reconcile counted', () => (errorsTotal(controller) > 0 ? true : undefined));

  // C-11: nothing left to wait for, but the finalizer removal is refused.
  await createMetal3Cluster(admin(), ns, 'doomed', { controlPlaneEndpoint: ENDPOINT, cloudProviderEnabled: true, noCloudProvider: false }, {
    finalizers: [FINALIZER],
  });
  const before = errorsTotal(controller);
  await admin().api(Metal3ClusterResource, ns).delete('doomed');
  const stuck = await metal3ClusterWhen(
    admin(),
    ns,
    'doomed',
    'the refused removal on BaremetalInfrastructureReady',
    (m) => v2(m, 'BaremetalInfrastructureReady') === 'False/InternalError',
  );
  assert.match(getV1Beta2Condition(stuck, 'BaremetalInfrastructureReady')?.message ?? '', REFUSED);
  assert.equal(stuck.metadata.finalizers, [FINALIZER]);
  await eventually('the failed removal counted', () => (errorsTotal(controller) > before ? true : undefined));
  await admin().api(Metal3ClusterResource, ns).mergePatch('doomed', { metadata: { finalizers: null } });
});

test.run();
