// N-1/N-2/T-6 with Cluster API's MachineSet (simulator) doing the cloning: Metal3Machines stamped
// from the template carry the cloned-from annotations, a later change of the template's mode reaches
// them, and a machine cloned after the change already agrees (nothing to write).
import * as assert from 'uvu/assert';
import { MachineSetResource, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { machineSetSimulator, type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/index';
import { bootstrapRef, createCluster, createKubeadmConfigTemplate, infraRef } from '@metal3-ts/test/sim/capi/rollout-testing';
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

const { test, env, admin, track } = controllerSuite('Metal3MachineTemplate controller with Metal3Machines cloned by the MachineSet simulator');

let controller: RunningController | undefined;
let simulators: RunningSimulators | undefined;

test.after(() => simulators?.stop());

const machineSet = (replicas: number) =>
  newMachineSet({
    metadata: { name: 'workers' },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: 'workers' } },
      template: {
        metadata: { labels: { pool: 'workers' } },
        spec: { clusterName: 'c1', version: 'v1.31.0', bootstrap: { configRef: bootstrapRef('kct') }, infrastructureRef: infraRef('m3mt-workers') },
      },
    },
  });

test("N-1/N-2/T-6: MachineSet clones get the template's new mode; a clone made after the change already agrees and is not written", async () => {
  const ns = await freshNamespace(env().admin.client, 'tmpl-capi');
  const deps = simulatorDeps(env().admin);
  simulators = await startSimulators(deps, machineSetSimulator(deps));
  controller = track(await startTemplateController(env(), ns));
  await createCluster(admin(), ns, 'c1');
  await createKubeadmConfigTemplate(admin(), ns, 'kct');
  await createTemplate(admin(), ns, 'm3mt-workers', { mode: 'metadata' });
  await admin().api(MachineSetResource, ns).create(machineSet(2));

  const clones = await eventually('2 cloned Metal3Machines', async () => {
    const items = (await admin().api(Metal3MachineResource, ns).list()).items;
    return items.length === 2 ? items : undefined;
  });
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
  });
  await settled(controller, before);
  assert.equal(Object.values(all), ['disabled', 'disabled', 'disabled']);
  assert.is(controller.counter.count({ verb: 'patch', resource: 'metal3machines' }), 2, 'only the two earlier clones were written');
});

test('the controller logged no warning or error in these tests (a missing permission would show as Forbidden)', () => {
  assert.equal(loggedProblems(), []);
});

test.run();
