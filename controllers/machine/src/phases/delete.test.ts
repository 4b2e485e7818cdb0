// The deletion phase and the stray-host release on the fake apiserver: the data claim dropped,
// a provisioned host deprovisioned first and waited for, a clean host released with the node-reuse
// label when the template asks for it (X-10, N-6), and a second host naming the machine released as a
// stray. Each test checks the server's objects and the scope (`released`, the Node observation).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  Metal3DataClaimResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3DataClaim,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { CONTROL_PLANE_LABEL, NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { reconcileStrays } from './association.ts';
import { reconcileDelete } from './delete.ts';
import { reconcileSpec } from './spec.ts';
import { CLUSTER, hostOn, IMAGE, machineScene, NS, type PhaseWorld, phaseWorld, putHost } from './testing.ts';

const test = suite('machine phases: delete and stray hosts (fake apiserver)');

const KCP = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: 'kcp', uid: 'uid-kcp', controller: true };

/** A control-plane machine cloned from template `tmpl`, holding h1, with a data claim; deleted on the server. */
async function deletedMachine(world: PhaseWorld, host: { state: string; deployed: boolean }, nodeReuse: boolean) {
  await world.put(
    Metal3MachineTemplateResource,
    newMetal3MachineTemplate({ metadata: { name: 'tmpl', namespace: NS }, spec: { nodeReuse, template: { spec: { image: IMAGE } } } }),
  );
  const m1 = await machineScene(world, 'm1', {
    annotations: { [HOST_ANNOTATION]: `${NS}/h1`, [CLONED_FROM_NAME_ANNOTATION]: 'tmpl' },
    finalizers: [METAL3_MACHINE_FINALIZER],
    machineLabels: { [CONTROL_PLANE_LABEL]: '' },
    machineOwners: [KCP],
  });
  const held = claimedHost(testHost('h1', { state: host.state }), {
    consumer: machineRef('m1', NS, m1.metadata.uid),
    labels: { [CLUSTER_NAME_LABEL]: CLUSTER },
  });
  if (host.deployed) Object.assign(held.spec ?? {}, { image: IMAGE, online: true });
  await putHost(world, held);
  await world.put(
    Metal3DataClaimResource,
    newMetal3DataClaim({ metadata: { name: 'm1', namespace: NS, finalizers: [METAL3_MACHINE_FINALIZER] }, spec: { template: { name: 'dt' } } }),
  );
  await world.client.api(Metal3MachineResource, NS).delete('m1');
  const scope = await world.scope();
  assert.is(scope.decision.kind, 'Delete');
  return scope;
}

test('X-2 X-3: a provisioned host is deprovisioned first (the deployment removed) and the machine waits; the data claim is dropped', async () => {
  const world = phaseWorld();
  const scope = await deletedMachine(world, { state: 'provisioned', deployed: true }, false);
  assert.equal(await reconcileDelete(world.ctx, scope), world.ctx.safetyNet);

  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.image, undefined, 'the deployment is removed');
  assert.is(host.spec?.consumerRef?.name, 'm1', 'still ours until BMO has cleaned it');
  assert.is(scope.released, undefined, 'the finalizer stays');
  assert.equal((await world.client.api(Metal3DataClaimResource, NS).list()).items, [], 'X-2: the claim lost our finalizer and is deleted');
  assert.equal(scope.observed.node, { kind: 'Problem', step: 'Deleting', message: '' });
});

test('X-10 N-3 N-6: a clean host is released with the node-reuse label of its control plane when the template sets nodeReuse', async () => {
  const world = phaseWorld();
  const scope = await deletedMachine(world, { state: 'available', deployed: false }, true);
  assert.equal(await reconcileDelete(world.ctx, scope), {});

  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef, undefined);
  assert.equal(host.metadata.ownerReferences ?? [], []);
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], undefined);
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], 'cp-kcp');
  assert.is(scope.released, true, 'the finalizer may go');
});

test('X-10 N-7: without nodeReuse in the template the released host carries no reuse label', async () => {
  const world = phaseWorld();
  const scope = await deletedMachine(world, { state: 'available', deployed: false }, false);
  assert.equal(await reconcileDelete(world.ctx, scope), {});
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef, undefined);
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], undefined);
  assert.is(scope.released, true);
});

test('M-24: a second host naming the machine besides its recorded one is released as a stray; the recorded host is untouched', async () => {
  const world = phaseWorld();
  const m1 = await machineScene(world, 'm1', { annotations: { [HOST_ANNOTATION]: `${NS}/h1` } });
  const consumer = machineRef('m1', NS, m1.metadata.uid);
  const h1 = await putHost(world, claimedHost(testHost('h1', { state: 'provisioned' }), { consumer }));
  await putHost(world, claimedHost(testHost('h2'), { consumer, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }));
  const scope = await world.scope();
  reconcileSpec(world.ctx, scope);
  assert.is(await reconcileStrays(world.ctx, scope), undefined);

  const stray = await hostOn(world.client, 'h2');
  assert.is(stray.spec?.consumerRef, undefined);
  assert.is(stray.metadata.labels?.[CLUSTER_NAME_LABEL], undefined);
  const kept = await hostOn(world.client, 'h1');
  assert.is(kept.spec?.consumerRef?.name, 'm1');
  assert.is(kept.metadata.resourceVersion, h1.metadata.resourceVersion, 'no write to the recorded host');
});

test.run();
