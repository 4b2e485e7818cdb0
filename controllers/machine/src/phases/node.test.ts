// Phase `node` (P-8…P-12) with a second fake apiserver as the workload cluster: the Node
// the kubelet labelled with the host's UID gets the provider ID, which the phase records with
// readiness; no Node yet is the default ID and a poll, not a failure; a Forbidden Node patch (the fake has no RBAC, so a
// transport hook refuses it) is a typed failure with a Warning event, which deriveStatus shows on
// KubernetesNodeReady.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError } from '@metal3-ts/generated';
import { newNode, NodeResource } from '@metal3-ts/generated/core/v1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { runStep, StepError } from '@metal3-ts/shared/controller/step-error';
import { refusalOf } from '@metal3-ts/shared/controller/refusal';
import { fakeCluster } from '@metal3-ts/shared/testing/fake-client/index';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { NodeProviderIDError } from '../errors.ts';
import { HOST_ANNOTATION, KUBERNETES_NODE_READY, NODE_UUID_LABEL } from '../names.ts';
import { deriveStatus } from '../status.ts';
import { reconcileNode } from './node.ts';
import { IMAGE, machineScene, NS, phaseWorld, putHost } from './testing.ts';

const test = suite('machine phases: node (fake apiserver, fake workload cluster)');

/** A provisioned machine holding h1, a workload cluster, and (when `node`) the Node labelled with h1's UID. */
async function provisioned(node: boolean) {
  const workload = fakeCluster();
  const world = phaseWorld({ workloadClient: () => Promise.resolve(workload.client) });
  const m1 = await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  const host = await putHost(world, claimedHost(testHost('h1', { state: 'provisioned' }), { consumer: machineRef('m1', NS, m1.metadata.uid) }));
  if (node) {
    await workload.client.api(NodeResource).create(newNode({ metadata: { name: 'node-1', labels: { [NODE_UUID_LABEL]: host.metadata.uid ?? '' } }, spec: {} }));
  }
  return { world, workload, scope: await world.scope() };
}

test('P-8 P-9 P-11: the Node labelled with the host UID gets the provider ID; the phase records it, readiness and the Node', async () => {
  const { world, workload, scope } = await provisioned(true);
  assert.equal(await reconcileNode(world.ctx, scope), {});

  const expected = `metal3://${NS}/h1/m1`;
  assert.is((await workload.client.api(NodeResource).get('node-1')).spec?.providerID, expected);
  assert.is(scope.observed.providerID, expected);
  assert.is(scope.observed.ready, true);
  assert.equal(scope.observed.node, { kind: 'Ready' });
  assert.equal(scope.observed.data, { kind: 'External' }, 'P-9: no data template, the Secrets came from elsewhere');
  assert.equal(world.events.map((e) => [e.reason, e.message]), [['ProviderIDSet', `Node node-1 given providerID ${expected}`]]);
});

test('P-10 P-12: no Node registered yet: the default provider ID is recorded (ready) and the workload cluster polled, not a failure', async () => {
  const { world, workload, scope } = await provisioned(false);
  const result = await reconcileNode(world.ctx, scope);
  assert.ok(result && typeof result.requeueAfterMs === 'number' && result.requeueAfterMs > 0, JSON.stringify(result));
  assert.is(scope.observed.providerID, `metal3://${NS}/h1/m1`);
  assert.is(scope.observed.ready, true);
  assert.is(scope.observed.node, undefined, 'no Node found: KubernetesNodeReady keeps waiting');
  assert.equal((await workload.client.api(NodeResource).list()).items, []);
  assert.equal(world.events, []);
});

test('P-6 (changed): spec.providerID already defaulted (P-10) and the Node labelled with the host UID carries the legacy ID: the machine takes the legacy ID, no Node write', async () => {
  const workload = fakeCluster();
  const world = phaseWorld({ workloadClient: () => Promise.resolve(workload.client) });
  const m1 = await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` }, spec: { image: IMAGE, providerID: `metal3://${NS}/h1/m1` } });
  const host = await putHost(world, claimedHost(testHost('h1', { state: 'provisioned' }), { consumer: machineRef('m1', NS, m1.metadata.uid) }));
  const legacy = `metal3://${host.metadata.uid}`;
  await workload.client.api(NodeResource).create(
    newNode({ metadata: { name: 'node-1', labels: { [NODE_UUID_LABEL]: host.metadata.uid ?? '' } }, spec: { providerID: legacy } }),
  );
  const scope = await world.scope();
  const before = (await workload.client.api(NodeResource).get('node-1')).metadata.resourceVersion;

  assert.equal(await reconcileNode(world.ctx, scope), {});
  assert.is(scope.observed.providerID, legacy, 'the ID the Node carries, which Cluster API will match');
  assert.is(scope.observed.ready, true);
  assert.equal(scope.observed.node, { kind: 'Ready' });
  assert.is(deriveStatus({ m3m: scope.m3m, base: scope.base, observed: scope.observed, now: scope.now }).spec?.providerID, legacy);
  assert.is((await workload.client.api(NodeResource).get('node-1')).metadata.resourceVersion, before, 'the Node is not written');
  assert.equal(world.events, []);
});

test('P-11: a Forbidden Node patch is a typed failure naming the Node, told by a Warning event and shown on KubernetesNodeReady', async () => {
  const { world, workload, scope } = await provisioned(true);
  workload.client.transport.hooks = {
    before: (request) =>
      request.method === 'PATCH' && request.path.includes('/nodes/')
        ? Promise.reject(
          apiError(403, { reason: 'Forbidden', message: 'nodes "node-1" is forbidden', code: 403 } as never, { verb: request.method, path: request.path }),
        )
        : Promise.resolve(),
  };
  let failure: unknown;
  try {
    await runStep(scope.object, 'node', () => reconcileNode(world.ctx, scope));
  } catch (error) {
    failure = error;
  }
  assert.ok(failure instanceof StepError && failure.step === 'node', String(failure));
  const cause = (failure as StepError).cause;
  assert.ok(cause instanceof NodeProviderIDError && cause.node === 'node-1', String(cause));
  assert.is(refusalOf(cause)?.code, 403, 'the refusal is carried, for the error metrics and the condition');
  assert.is((await workload.client.api(NodeResource).get('node-1')).spec?.providerID, undefined, 'nothing written');
  assert.equal(world.events.map((e) => [e.type, e.reason]), [['Warning', 'WorkloadClusterUnusable']]);
  assert.match(world.events[0]?.message ?? '', /node-1/);

  scope.observed.failure = failure;
  const status = deriveStatus({ m3m: scope.m3m, base: scope.m3m, observed: scope.observed, now: scope.now });
  const condition = getCondition(status, KUBERNETES_NODE_READY);
  assert.is(condition?.status, 'False');
  assert.is(condition?.severity, 'Warning');
  assert.match(condition?.message ?? '', /node-1/);
});

test.run();
