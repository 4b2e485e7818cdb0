// The MachineDeployment simulator (with the MachineSet simulator under it) on the real apiserver;
// a stand-in for the Machine controller makes Machines Running a little after they appear.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, isNotFound, Transport } from '@metal3-ts/generated';
import {
  type Machine,
  type MachineDeployment,
  MachineDeploymentResource,
  MachineResource,
  MachineSetResource,
  newMachineDeployment,
} from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from '../simulator.ts';
import { templateHash } from './machinedeployment-hash.ts';
import { machineDeploymentSimulator } from './machinedeployment.ts';
import { machineSetSimulator } from './machineset.ts';
import {
  bootstrapRef,
  createCluster,
  createKubeadmConfigTemplate,
  createMetal3MachineTemplate,
  eventually,
  infraRef,
  machineStandIn,
} from './rollout-testing.ts';

const test = suite('MachineDeployment simulator on the real apiserver');
const env = withSharedEnv(test);

let client: Client;
let deps: SimulatorDeps;
let running: RunningSimulators | undefined;

test.before(() => {
  client = new Client(Transport.fromConnection(env().admin));
});
test.after(() => client.transport.close());
test.before.each(async () => {
  deps = simulatorDeps(env().admin);
  const standIn = machineStandIn(deps, { delayMs: 150 });
  running = await startSimulators(deps, [...machineDeploymentSimulator(deps), ...machineSetSimulator(deps), ...standIn.runnables]);
});
test.after.each(async () => {
  await running?.stop();
  running = undefined;
});

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  await createCluster(client, ns, 'c1');
  await createMetal3MachineTemplate(client, ns, 'm3mt-v1');
  await createMetal3MachineTemplate(client, ns, 'm3mt-v2', 'http://172.22.0.1/images/node-v2.img');
  await createKubeadmConfigTemplate(client, ns, 'kct');
  return ns;
}

function deployment(replicas: number, strategy?: NonNullable<MachineDeployment['spec']>['strategy']): MachineDeployment {
  return newMachineDeployment({
    metadata: { name: 'workers' },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: 'workers' } },
      ...(strategy ? { strategy } : {}),
      template: {
        metadata: { labels: { pool: 'workers' } },
        spec: { clusterName: 'c1', version: 'v1.31.0', bootstrap: { configRef: bootstrapRef('kct') }, infrastructureRef: infraRef('m3mt-v1') },
      },
    },
  });
}

const isRunning = (m: Readonly<Machine>) => !m.metadata.deletionTimestamp && m.status?.phase === 'Running';

function deploymentStatusWhen(ns: string, ok: (s: NonNullable<MachineDeployment['status']>) => boolean, what: string, timeoutMs = 20_000) {
  return eventually(
    what,
    async () => {
      const md = await client.api(MachineDeploymentResource, ns).get('workers');
      return md.status && ok(md.status) ? md : undefined;
    },
    timeoutMs,
  );
}

test('a new MachineDeployment makes one MachineSet for its template and reaches its replicas', async () => {
  const ns = await setup('md-create');
  const created = await client.api(MachineDeploymentResource, ns).create(deployment(3));
  const md = await deploymentStatusWhen(ns, (s) => s.readyReplicas === 3 && s.availableReplicas === 3 && s.updatedReplicas === 3, '3 ready');
  assert.is(md.status?.phase, 'Running');
  assert.is(md.status?.replicas, 3);
  assert.is(md.status?.unavailableReplicas, 0);
  assert.is(md.status?.observedGeneration, md.metadata.generation);
  assert.is(md.metadata.annotations?.['machinedeployment.clusters.x-k8s.io/revision'], '1');
  assert.is(md.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  assert.equal(md.spec?.selector.matchLabels, { pool: 'workers', 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/deployment-name': 'workers' });
  assert.ok(md.metadata.finalizers?.includes('cluster.x-k8s.io/machinedeployment'));
  assert.is(md.status?.selector, 'cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/deployment-name=workers,pool=workers');

  const sets = (await client.api(MachineSetResource, ns).list()).items;
  assert.is(sets.length, 1);
  const ms = sets[0]!;
  const hash = templateHash(md.spec?.template);
  assert.is(ms.metadata.name, `workers-${hash}`);
  assert.equal(ms.metadata.ownerReferences, [{
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    name: 'workers',
    uid: created.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assert.is(ms.metadata.labels?.['cluster.x-k8s.io/deployment-name'], 'workers');
  assert.is(ms.metadata.labels?.['machine-template-hash'], hash);
  assert.is(ms.spec?.selector.matchLabels?.['machine-template-hash'], hash);

  const machines = (await client.api(MachineResource, ns).list()).items;
  assert.is(machines.length, 3);
  for (const m of machines) {
    assert.is(m.metadata.labels?.['cluster.x-k8s.io/deployment-name'], 'workers');
    assert.is(m.metadata.labels?.['cluster.x-k8s.io/set-name'], ms.metadata.name);
    assert.is(m.metadata.labels?.['machine-template-hash'], hash);
    assert.is(m.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
    const m3m = await client.api(Metal3MachineResource, ns).get(m.metadata.name ?? '');
    assert.is(m3m.metadata.labels?.['cluster.x-k8s.io/deployment-name'], 'workers');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'm3mt-v1');
  }
});

/** Waits until the deployment has seen `generation` and all its replicas are updated and available. */
function rolledOut(ns: string, generation: number, replicas: number) {
  return deploymentStatusWhen(
    ns,
    (s) => (s.observedGeneration ?? 0) >= generation && s.updatedReplicas === replicas && s.availableReplicas === replicas && s.replicas === replicas,
    'rollout to finish',
    30_000,
  );
}

/**
 * Changes the template and follows the rollout through every Machine event, checking the rolling
 * update's promises on each state the informer reports.
 */
async function rollOut(ns: string, limits: { maxSurge: number; maxUnavailable: number }, replicas = 3) {
  const machines = deps.informers.informerFor(MachineResource);
  let maxLive = 0;
  let minRunning = Number.POSITIVE_INFINITY;
  const transitions: string[] = [];
  const check = () => {
    const list = machines.store.list(ns);
    const live = list.filter((m) => !m.metadata.deletionTimestamp);
    const runningNow = list.filter(isRunning);
    maxLive = Math.max(maxLive, live.length);
    minRunning = Math.min(minRunning, runningNow.length);
    const onV2 = runningNow.filter((m) => m.metadata.labels?.['machine-template-hash'] !== hashV1).length;
    const label = `${runningNow.length - onV2} old + ${onV2} new running`;
    if (transitions.at(-1) !== label) transitions.push(label);
  };
  const mds = client.api(MachineDeploymentResource, ns);
  const hashV1 = templateHash((await mds.get('workers')).spec?.template);
  const unsubscribe = machines.subscribe(check);
  const patched = await mds.mergePatch('workers', { spec: { template: { spec: { infrastructureRef: infraRef('m3mt-v2') } } } });
  const done = await rolledOut(ns, patched.metadata.generation ?? 0, replicas);
  await eventually('old Machines gone', () => {
    const list = machines.store.list(ns);
    return list.length === replicas && list.every((m) => m.metadata.labels?.['machine-template-hash'] !== hashV1) ? true : undefined;
  });
  unsubscribe();
  assert.ok(maxLive <= replicas + limits.maxSurge, `at most ${replicas + limits.maxSurge} Machines at once, saw ${maxLive}`);
  assert.ok(minRunning >= replicas - limits.maxUnavailable, `at least ${replicas - limits.maxUnavailable} Running at all times, saw ${minRunning}`);
  return { done, transitions, maxLive, minRunning };
}

test('changing the template ref rolls Machines one at a time within maxSurge 1 / maxUnavailable 0', async () => {
  const ns = await setup('md-roll');
  await client.api(MachineDeploymentResource, ns).create(deployment(3));
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 3, '3 available');
  const { done, transitions, maxLive, minRunning } = await rollOut(ns, { maxSurge: 1, maxUnavailable: 0 });
  assert.is(maxLive, 4, 'the surge was used');
  assert.is(minRunning, 3);
  // Replaced one at a time: 3+0 → 3+1 → 2+1 → 2+2 → 1+2 → 1+3 → 0+3.
  assert.equal(transitions.slice(transitions.indexOf('3 old + 0 new running')), [
    '3 old + 0 new running',
    '3 old + 1 new running',
    '2 old + 1 new running',
    '2 old + 2 new running',
    '1 old + 2 new running',
    '1 old + 3 new running',
    '0 old + 3 new running',
  ]);
  assert.is(done.metadata.annotations?.['machinedeployment.clusters.x-k8s.io/revision'], '2');
  for (const m of (await client.api(MachineResource, ns).list()).items) {
    const m3m = await client.api(Metal3MachineResource, ns).get(m.metadata.name ?? '');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'm3mt-v2');
    assert.is(m3m.spec?.image?.url, 'http://172.22.0.1/images/node-v2.img');
  }
  const sets = (await client.api(MachineSetResource, ns).list()).items;
  assert.is(sets.length, 2, 'one old set kept (revisionHistoryLimit 1)');
  const old = sets.find((s) => s.metadata.annotations?.['machinedeployment.clusters.x-k8s.io/revision'] === '1');
  assert.is(old?.spec?.replicas, 0);
});

test('maxSurge 0 / maxUnavailable 1 removes before it adds', async () => {
  const ns = await setup('md-roll-down');
  await client.api(MachineDeploymentResource, ns).create(deployment(3, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }));
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 3, '3 available');
  const { maxLive, minRunning } = await rollOut(ns, { maxSurge: 0, maxUnavailable: 1 });
  assert.is(maxLive, 3);
  assert.is(minRunning, 2);
});

test('rolling back reuses the old MachineSet as the newest revision; later rollouts prune empty sets past the history limit', async () => {
  const ns = await setup('md-prune');
  const mds = client.api(MachineDeploymentResource, ns);
  await mds.create(deployment(1));
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 1, '1 available');
  const [first] = (await client.api(MachineSetResource, ns).list()).items;
  await rollOut(ns, { maxSurge: 1, maxUnavailable: 0 }, 1);

  const back = await mds.mergePatch('workers', { spec: { template: { spec: { infrastructureRef: infraRef('m3mt-v1') } } } });
  await rolledOut(ns, back.metadata.generation ?? 0, 1);
  const reused = await client.api(MachineSetResource, ns).get(first?.metadata.name ?? '');
  assert.is(reused.metadata.annotations?.['machinedeployment.clusters.x-k8s.io/revision'], '3', 'the first set is the newest revision again');
  assert.is(reused.spec?.replicas, 1);

  const upgrade = await mds.mergePatch('workers', { spec: { template: { spec: { version: 'v1.32.0' } } } });
  await rolledOut(ns, upgrade.metadata.generation ?? 0, 1);
  const sets = await eventually('two sets left', async () => {
    const list = (await client.api(MachineSetResource, ns).list()).items;
    return list.length === 2 ? list : undefined;
  });
  assert.equal(sets.map((s) => s.metadata.annotations?.['machinedeployment.clusters.x-k8s.io/revision']).sort(), ['3', '4']);
});

test('scaling the deployment scales its MachineSet up and down', async () => {
  const ns = await setup('md-scale');
  const mds = client.api(MachineDeploymentResource, ns);
  await mds.create(deployment(1));
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 1, '1 available');
  await mds.mergePatch('workers', { spec: { replicas: 4 } });
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 4 && s.replicas === 4, '4 available');
  const patched = await mds.mergePatch('workers', { spec: { replicas: 2 } });
  const md = await rolledOut(ns, patched.metadata.generation ?? 0, 2);
  assert.is(md.status?.phase, 'Running');
  await eventually('2 Machines', async () => ((await client.api(MachineResource, ns).list()).items.length === 2 ? true : undefined));
  assert.is((await client.api(MachineSetResource, ns).list()).items.length, 1);
});

test('an unreadable maxSurge is reported as a terminal problem: no MachineSet, no crash', async () => {
  const ns = await setup('md-badstrategy');
  await client.api(MachineDeploymentResource, ns).create(deployment(1, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'lots' } }));
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await client.api(MachineSetResource, ns).list()).items.length, 0);
  // Fixing the object is the change that brings the next reconcile.
  await client.api(MachineDeploymentResource, ns).mergePatch('workers', { spec: { strategy: { rollingUpdate: { maxSurge: 1 } } } });
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 1, '1 available after the fix');
});

test('deleting the deployment deletes its MachineSets and Machines, then the deployment goes', async () => {
  const ns = await setup('md-delete');
  const mds = client.api(MachineDeploymentResource, ns);
  await mds.create(deployment(2));
  await deploymentStatusWhen(ns, (s) => s.availableReplicas === 2, '2 available');
  await mds.delete('workers');
  await eventually('deployment gone', async () => {
    try {
      await mds.get('workers');
      return undefined;
    } catch (error) {
      return isNotFound(error) ? true : undefined;
    }
  });
  assert.is((await client.api(MachineSetResource, ns).list()).items.length, 0);
  assert.is((await client.api(MachineResource, ns).list()).items.length, 0);
});

test.run();
