// N-1/N-2/T-6 with the real Cluster API's MachineSet doing the cloning (testing/cluster-api.ts: the
// managers of CAPI_VERSION, default the newest): Metal3Machines it stamps from the template carry the
// cloned-from annotations, a later change of the template's mode reaches them, and a machine cloned
// after the change already agrees (nothing to write).
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { KubeadmConfigTemplateResource, newKubeadmConfigTemplate } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { ClusterResource, MachineSetResource, newCluster, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, Metal3MachineResource, Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION } from '../src/names.ts';
import {
  createTemplate,
  eventually,
  loggedProblems,
  modes,
  modesBecome,
  type RunningController,
  setTemplateMode,
  settled,
  startTemplateController,
} from './support.ts';

const { test, env, admin, track, namespace } = controllerSuite<RunningController>(
  'Metal3MachineTemplate controller with Metal3Machines cloned by the real MachineSet',
  { clusterApi: true },
);

// Real Cluster API clones within seconds, but a loaded CI machine runs its managers beside ours.
const CLONE_MS = 30_000;

/** The Cluster the MachineSet belongs to (its webhook wants an infrastructure or control-plane reference). */
function createCluster(client: Client, ns: string, name: string) {
  return client.api(ClusterResource, ns).create(
    newCluster({ metadata: { name }, spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name } } }),
  );
}

/** The bootstrap template the MachineSet clones beside ours (the kubeadm bootstrap provider's). */
function createKubeadmConfigTemplate(client: Client, ns: string, name: string) {
  return client.api(KubeadmConfigTemplateResource, ns).create(newKubeadmConfigTemplate({ metadata: { name }, spec: { template: { spec: {} } } }));
}

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

const machineSet = (replicas: number) =>
  newMachineSet({
    metadata: { name: 'workers' },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: 'workers' } },
      template: {
        metadata: { labels: { pool: 'workers' } },
        spec: {
          clusterName: 'c1',
          version: 'v1.31.0',
          bootstrap: { configRef: ref(KubeadmConfigTemplateResource.apiVersion, 'KubeadmConfigTemplate', 'kct') },
          infrastructureRef: ref(Metal3MachineTemplateResource.apiVersion, 'Metal3MachineTemplate', 'm3mt-workers'),
        },
      },
    },
  });

test("N-1/N-2/T-6: real MachineSet clones get the template's new mode; a clone made after the change already agrees and is not written", async () => {
  const ns = await namespace('tmpl-capi');
  const controller = track(await startTemplateController(env(), ns));
  await createCluster(admin(), ns, 'c1');
  await createKubeadmConfigTemplate(admin(), ns, 'kct');
  await createTemplate(admin(), ns, 'm3mt-workers', { mode: 'metadata' });
  await admin().api(MachineSetResource, ns).create(machineSet(2));

  const clones = await eventually('2 Metal3Machines cloned by the MachineSet', async () => {
    const items = (await admin().api(Metal3MachineResource, ns).list()).items;
    return items.length === 2 ? items : undefined;
  }, CLONE_MS);
  for (const m of clones) {
    assert.is(m.metadata.annotations?.[CLONED_FROM_NAME_ANNOTATION], 'm3mt-workers');
    assert.is(m.metadata.annotations?.[CLONED_FROM_GROUPKIND_ANNOTATION], 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io');
    assert.is(m.spec?.automatedCleaningMode, 'metadata', "cloned with the template's spec");
  }
  await settled(controller, 0);
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 0, 'fresh clones already agree');

  await setTemplateMode(admin(), ns, 'm3mt-workers', 'disabled');
  const names = clones.map((m) => m.metadata.name ?? '');
  await modesBecome(admin(), ns, Object.fromEntries(names.map((n) => [n, 'disabled'])));

  const before = controller.reconciles();
  await admin().api(MachineSetResource, ns).mergePatch('workers', { spec: { replicas: 3 } });
  const all = await eventually('a third clone', async () => {
    const now = await modes(admin(), ns);
    return Object.keys(now).length === 3 ? now : undefined;
  }, CLONE_MS);
  await settled(controller, before);
  assert.equal(Object.values(all), ['disabled', 'disabled', 'disabled']);
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 2, 'only the two earlier clones were written');
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
