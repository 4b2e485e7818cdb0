// B2-15 on the fake apiserver: which template decides whether a released host is kept for reuse.
// Seed 001 ("the new M3MTemplate that KCP is pointing to") and CAPM3 v1.13: the template the
// machine's KubeadmControlPlane or MachineDeployment points to now, read at the version its owner
// reference names (v1beta1 or v1beta2 KCP: two paths), so a new template with nodeReuse keeps the host
// though the machine was cloned from one without, and the other way round. An owner that cannot be
// read (gone) leaves the decision to the template the machine was cloned from (CAPM3 v1.12.7).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { OwnerReference } from '@metal3-ts/generated';
import * as capi from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import * as kcpV1beta1 from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import * as kcpV1beta2 from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta2';
import { Metal3MachineResource, Metal3MachineTemplateResource, newMetal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { CONTROL_PLANE_LABEL, NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { machineRef, testHost } from '@metal3-ts/baremetal/testing';
import { CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { reconcileDelete } from './delete.ts';
import { CLUSTER, hostOn, IMAGE, machineScene, NS, type PhaseWorld, phaseWorld, putHost } from './testing.ts';

const test = suite('machine phases: which template decides node reuse (B2-15, fake apiserver)');
const INFRA = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate' };

async function template(world: PhaseWorld, name: string, nodeReuse: boolean): Promise<void> {
  await world.put(
    Metal3MachineTemplateResource,
    newMetal3MachineTemplate({ metadata: { name, namespace: NS }, spec: { nodeReuse, template: { spec: { image: IMAGE } } } }),
  );
}

/** A KubeadmControlPlane `kcp` at `version` whose machines are cloned from template `current` from now on. */
async function controlPlane(world: PhaseWorld, version: 'v1beta1' | 'v1beta2', current: string): Promise<OwnerReference> {
  const [resource, machineTemplate] = version === 'v1beta1'
    ? [kcpV1beta1.KubeadmControlPlaneResource, { infrastructureRef: { ...INFRA, name: current, namespace: NS } }]
    : [kcpV1beta2.KubeadmControlPlaneResource, {
      spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: INFRA.kind, name: current } },
    }];
  const made = await world.put(resource as typeof kcpV1beta1.KubeadmControlPlaneResource, {
    apiVersion: resource.apiVersion,
    kind: 'KubeadmControlPlane',
    metadata: { name: 'kcp', namespace: NS },
    spec: { version: 'v1.36.0', machineTemplate },
  } as unknown as kcpV1beta1.KubeadmControlPlane);
  return { apiVersion: resource.apiVersion, kind: 'KubeadmControlPlane', name: 'kcp', uid: made.metadata.uid ?? '', controller: true };
}

/** MachineDeployment `md` whose current template is `current`, and its MachineSet owning the machine. */
async function machineDeployment(world: PhaseWorld, current: string): Promise<OwnerReference> {
  const md = await world.put(capi.MachineDeploymentResource, {
    apiVersion: capi.MachineDeploymentResource.apiVersion,
    kind: 'MachineDeployment',
    metadata: { name: 'md', namespace: NS },
    spec: { clusterName: CLUSTER, template: { spec: { clusterName: CLUSTER, bootstrap: {}, infrastructureRef: { ...INFRA, name: current } } } },
  } as unknown as capi.MachineDeployment);
  const ms = await world.put(capi.MachineSetResource, {
    apiVersion: capi.MachineSetResource.apiVersion,
    kind: 'MachineSet',
    metadata: {
      name: 'md-abc',
      namespace: NS,
      ownerReferences: [{ apiVersion: md.apiVersion, kind: 'MachineDeployment', name: 'md', uid: md.metadata.uid ?? '', controller: true }],
    },
    spec: {
      clusterName: CLUSTER,
      selector: {},
      template: { spec: { clusterName: CLUSTER, bootstrap: {}, infrastructureRef: { ...INFRA, name: 'tmpl-old' } } },
    },
  } as unknown as capi.MachineSet);
  return { apiVersion: ms.apiVersion, kind: 'MachineSet', name: 'md-abc', uid: ms.metadata.uid ?? '', controller: true };
}

/** Machine m1 (cloned from `tmpl-old`) owned by `owner`, holding a clean host h1, deleted; reconciled once. */
async function released(world: PhaseWorld, owner: OwnerReference, controlPlaneMachine: boolean): Promise<string | undefined> {
  const m1 = await machineScene(world, 'm1', {
    annotations: { [HOST_ANNOTATION]: `${NS}/h1`, [CLONED_FROM_NAME_ANNOTATION]: 'tmpl-old' },
    finalizers: [METAL3_MACHINE_FINALIZER],
    ...(controlPlaneMachine ? { machineLabels: { [CONTROL_PLANE_LABEL]: '' } } : {}),
    machineOwners: [owner],
  });
  await putHost(
    world,
    claimedHost(testHost('h1', { state: 'available' }), { consumer: machineRef('m1', NS, m1.metadata.uid), labels: { [CLUSTER_NAME_LABEL]: CLUSTER } }),
  );
  await world.client.api(Metal3MachineResource, NS).delete('m1');
  const scope = await world.scope();
  assert.equal(await reconcileDelete(world.ctx, scope), {});
  assert.is(scope.released, true);
  const host = await hostOn(world.client, 'h1');
  assert.is(host.spec?.consumerRef, undefined, 'released');
  return host.metadata.labels?.[NODE_REUSE_LABEL];
}

test('B2-15 (seed 001): the template the KubeadmControlPlane points to now decides, read at v1beta1 and at v1beta2', async () => {
  for (const version of ['v1beta1', 'v1beta2'] as const) {
    for (const [old, current, want] of [[false, true, 'cp-kcp'], [true, false, undefined]] as const) {
      const world = phaseWorld();
      await template(world, 'tmpl-old', old);
      await template(world, 'tmpl-new', current);
      const owner = await controlPlane(world, version, 'tmpl-new');
      assert.is(await released(world, owner, true), want, `${version}: cloned from nodeReuse ${old}, KCP now at nodeReuse ${current}`);
    }
  }
});

test("B2-15 (seed 001): the template the MachineDeployment points to now decides, not the old MachineSet's", async () => {
  for (const [old, current, want] of [[false, true, 'md-md'], [true, false, undefined]] as const) {
    const world = phaseWorld();
    await template(world, 'tmpl-old', old);
    await template(world, 'tmpl-new', current);
    const owner = await machineDeployment(world, 'tmpl-new');
    assert.is(await released(world, owner, false), want, `cloned from nodeReuse ${old}, MachineDeployment now at nodeReuse ${current}`);
  }
});

test('B2-15, N-7: an owner that cannot be read (gone) leaves it to the template the machine was cloned from', async () => {
  const world = phaseWorld();
  await template(world, 'tmpl-old', true);
  const gone = { apiVersion: kcpV1beta2.KubeadmControlPlaneResource.apiVersion, kind: 'KubeadmControlPlane', name: 'kcp', uid: 'uid-kcp', controller: true };
  assert.is(await released(world, gone, true), 'cp-kcp');
});

test.run();
