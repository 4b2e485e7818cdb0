// Deletion of a Metal3Machine and node reuse (research section 4 X-10, section 6 N-3…N-7, seed 001)
// against a real apiserver, without a workload cluster, with the simulated BMO (instant) and the real
// Cluster API: a released host is labelled for the control plane or MachineDeployment its machine
// belonged to when the machine's template has nodeReuse, and the next machine of that owner takes it
// (H-7, H-10, M-24); not when the Cluster itself is being deleted. The rest of the deletion flow is
// checked in deletion.test.ts. Every test selects hosts by its own `group` label.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterResource, type Machine, MachineResource, MachineSetResource, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineTemplateResource, newMetal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { NODE_REUSE_LABEL } from '@metal3-ts/baremetal/names';
import { CLONED_FROM_NAME_ANNOTATION, CLUSTER_NAME_LABEL } from '../src/names.ts';
import { availableHosts, controlPlaneMachine, deleteMachine, hostApi, provisionedHost, releasedHost, selector } from './scene-helpers.ts';
import { BOOTSTRAP_SECRET, CLUSTER, createClusterScene, createMachine, EVENT_MS, HOLD_FINALIZER, IMAGE, machineTestScene, sleep, when } from './support.ts';

const test = suite('Metal3Machine deletion: node reuse (X-10, N-3…N-7)');
const scene = machineTestScene(test, {
  prefix: 'machine-deletion-reuse',
  world: { workload: false },
  async setup({ client, ns }) {
    const templates = client.api(Metal3MachineTemplateResource, ns);
    for (const [name, nodeReuse] of [['cp-tmpl', true], ['md-tmpl', true], ['plain-tmpl', false]] as const) {
      await templates.create(newMetal3MachineTemplate({ metadata: { name }, spec: { nodeReuse, template: { spec: { image: IMAGE } } } }));
    }
  },
});

test('X-10, N-3, N-6, H-7, H-10, M-24 (seed 001): a control-plane machine cloned from a nodeReuse template leaves its host reserved as cp-<KCP>; the next machine of that KCP takes exactly that host and the label goes', async () => {
  await availableHosts(scene, 'cp', ['cp-h0']);
  await controlPlaneMachine(scene, 'cp-0', 'kcp-1', 'cp', 'cp-tmpl');
  assert.is(await provisionedHost(scene, 'cp-0'), 'cp-h0');
  // A free host too: the reserved one must win over it (H-10).
  await availableHosts(scene, 'cp', ['cp-h1']);

  await deleteMachine(scene, 'cp-0');
  let host = await releasedHost(scene, 'cp-h0');
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], 'cp-kcp-1', 'X-10, N-3: reserved for KubeadmControlPlane kcp-1');
  assert.is(host.spec?.consumerRef, undefined, 'X-11');
  assert.is(host.metadata.ownerReferences, undefined, 'X-13');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], undefined, 'X-14');
  assert.is(host.spec?.image, undefined);
  assert.is(host.metadata.labels?.group, 'cp', 'other labels stay');

  await controlPlaneMachine(scene, 'cp-1', 'kcp-1', 'cp', 'cp-tmpl');
  assert.is(await provisionedHost(scene, 'cp-1'), 'cp-h0', 'H-7, H-10: the host reserved for kcp-1, not the free cp-h1');
  host = await hostApi(scene).get('cp-h0');
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], undefined, 'M-24: the reuse label is removed on claim');
  assert.is((await hostApi(scene).get('cp-h1')).spec?.consumerRef, undefined);
});

test('X-10, N-4, N-6, N-7: a worker of MachineSet→MachineDeployment md-1 leaves its host labelled md-md-1 when its template has nodeReuse; nodeReuse false or no cloned-from-name ⇒ no label', async () => {
  const machineSet = await scene.client.api(MachineSetResource, scene.ns).create(
    newMachineSet({
      metadata: {
        name: 'ms-1',
        labels: { [CLUSTER_NAME_LABEL]: CLUSTER },
        ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineDeployment', name: 'md-1', uid: 'uid-of-md-1', controller: true }],
      },
      // As real Cluster API accepts it; no replicas, and a selector the Machines below do not match,
      // so its MachineSet controller neither creates nor deletes any: they are only owned by it.
      spec: {
        clusterName: CLUSTER,
        replicas: 0,
        selector: { matchLabels: { set: 'ms-1' } },
        template: {
          metadata: { labels: { set: 'ms-1' } },
          spec: {
            clusterName: CLUSTER,
            bootstrap: { dataSecretName: BOOTSTRAP_SECRET },
            infrastructureRef: { apiVersion: Metal3MachineTemplateResource.apiVersion, kind: 'Metal3MachineTemplate', name: 'md-tmpl' },
          },
        },
      },
    }),
  );
  const owners: Machine['metadata']['ownerReferences'] = [{
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineSet',
    name: 'ms-1',
    uid: machineSet.metadata.uid ?? '',
    controller: true,
  }];
  const rows = [
    { name: 'w-reuse', template: 'md-tmpl', label: 'md-md-1' },
    { name: 'w-plain', template: 'plain-tmpl', label: undefined },
    { name: 'w-none', template: undefined, label: undefined },
  ] as const;
  await availableHosts(scene, 'md', ['md-h0', 'md-h1', 'md-h2']);
  await Promise.all(
    rows.map((row) =>
      createMachine(scene.client, scene.ns, row.name, {
        spec: { image: IMAGE, ...selector('md') },
        machineOwners: owners,
        ...(row.template ? { annotations: { [CLONED_FROM_NAME_ANNOTATION]: row.template } } : {}),
      })
    ),
  );
  const hostOf = new Map<string, string>();
  for (const row of rows) hostOf.set(row.name, await provisionedHost(scene, row.name));
  assert.is(new Set(hostOf.values()).size, 3);

  await Promise.all(rows.map((row) => deleteMachine(scene, row.name)));
  for (const row of rows) {
    const host = await releasedHost(scene, hostOf.get(row.name) ?? '');
    const why = row.template ? `template ${row.template}` : 'no cloned-from-name';
    assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], row.label, `${row.name} (${why})`);
  }
});

test('N-6: no reuse label when the Cluster is being deleted, though the template has nodeReuse', async () => {
  await createClusterScene(scene.client, scene.ns, { name: 'doomed' });
  await scene.client.api(ClusterResource, scene.ns).mergePatch('doomed', { metadata: { finalizers: [HOLD_FINALIZER] } });
  await availableHosts(scene, 'n6', ['n6-h']);
  await controlPlaneMachine(scene, 'n6-0', 'kcp-n6', 'n6', 'cp-tmpl', { cluster: 'doomed' });
  assert.is(await provisionedHost(scene, 'n6-0'), 'n6-h');

  // Cluster API's finalizer is there too; ours holds the Cluster in deletion whatever it does.
  const cluster = await scene.client.api(ClusterResource, scene.ns).get('doomed');
  assert.ok(cluster.metadata.finalizers?.includes(HOLD_FINALIZER));
  await scene.client.api(ClusterResource, scene.ns).delete('doomed');
  await when(scene.client, ClusterResource, scene.ns, 'doomed', 'the Cluster being deleted', (c) => !!c.metadata.deletionTimestamp, EVENT_MS);
  await sleep(300); // the controller's Cluster informer sees the deletion (another watch than the Metal3Machine's)

  await deleteMachine(scene, 'n6-0');
  const host = await releasedHost(scene, 'n6-h');
  assert.is(host.metadata.labels?.[NODE_REUSE_LABEL], undefined, 'N-6: the cluster is going away, nothing to reuse the host for');
  assert.is(host.metadata.labels?.[CLUSTER_NAME_LABEL], undefined, 'X-14');

  await scene.client.api(MachineResource, scene.ns).delete('n6-0');
  const left = (await scene.client.api(ClusterResource, scene.ns).get('doomed')).metadata.finalizers?.filter((f) => f !== HOLD_FINALIZER) ?? [];
  await scene.client.api(ClusterResource, scene.ns).mergePatch('doomed', { metadata: { finalizers: left } });
});

test.run();
