// The MachineSet simulator on the real apiserver, with a stand-in for the Machine controller that
// marks Machines Running when the test lets it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, isNotFound, Transport } from '@metal3-ts/generated';
import { KubeadmConfigResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Machine, MachineResource, type MachineSet, MachineSetResource, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import { machineSetSimulator } from './machineset.ts';
import {
  bootstrapRef,
  createCluster,
  createKubeadmConfigTemplate,
  createMetal3MachineTemplate,
  eventually,
  infraRef,
  type MachineStandIn,
  machineStandIn,
} from './rollout-testing.ts';

const test = suite('MachineSet simulator on the real apiserver');
const env = withSharedEnv(test);

let client: Client;
let running: RunningSimulators | undefined;
let standIn: MachineStandIn;

test.before(() => {
  client = new Client(Transport.fromConnection(env().admin));
});
test.after(() => client.transport.close());
test.before.each(async () => {
  const deps = simulatorDeps(env().admin);
  standIn = machineStandIn(deps);
  running = await startSimulators(deps, [...machineSetSimulator(deps), ...standIn.runnables]);
});
test.after.each(async () => {
  await running?.stop();
  running = undefined;
});

async function setup(prefix: string): Promise<string> {
  const ns = await freshNamespace(env().admin.client, prefix);
  await createCluster(client, ns, 'c1');
  await createMetal3MachineTemplate(client, ns, 'm3mt');
  await createKubeadmConfigTemplate(client, ns, 'kct');
  return ns;
}

function machineSet(name: string, replicas: number): MachineSet {
  return newMachineSet({
    metadata: { name },
    spec: {
      clusterName: 'c1',
      replicas,
      selector: { matchLabels: { pool: name } },
      template: {
        metadata: { labels: { pool: name }, annotations: { 'example.com/from-set': 'yes' } },
        spec: { clusterName: 'c1', version: 'v1.31.0', bootstrap: { configRef: bootstrapRef('kct') }, infrastructureRef: infraRef('m3mt') },
      },
    },
  });
}

const listMachines = async (ns: string): Promise<Machine[]> => (await client.api(MachineResource, ns).list()).items;
const live = (ms: readonly Machine[]) => ms.filter((m) => !m.metadata.deletionTimestamp);

async function statusOf(ns: string, name: string) {
  return (await client.api(MachineSetResource, ns).get(name)).status ?? {};
}

test('scale up from zero creates Machines with cloned Metal3Machines and KubeadmConfigs, labelled and owned as CAPI does', async () => {
  const ns = await setup('ms-up');
  const ms = await client.api(MachineSetResource, ns).create(machineSet('workers', 3));
  const machines = await eventually('3 Machines', async () => {
    const list = await listMachines(ns);
    return list.length === 3 ? list : undefined;
  });
  for (const m of machines) {
    const name = m.metadata.name ?? '';
    assert.match(name, /^workers-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(m.metadata.ownerReferences, [{
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachineSet',
      name: 'workers',
      uid: ms.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    }]);
    assert.is(m.metadata.labels?.['cluster.x-k8s.io/set-name'], 'workers');
    assert.is(m.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
    assert.is(m.metadata.labels?.['pool'], 'workers');
    assert.is(m.metadata.annotations?.['example.com/from-set'], 'yes');
    assert.equal(m.metadata.finalizers, ['machine.cluster.x-k8s.io']);
    assert.equal(m.spec?.infrastructureRef, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name, namespace: ns });
    assert.equal(m.spec?.bootstrap.configRef, { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name, namespace: ns });
    assert.is(m.spec?.version, 'v1.31.0');

    const m3m = await client.api(Metal3MachineResource, ns).get(name);
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'm3mt');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind'], 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io');
    assert.is(m3m.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
    assert.is(m3m.metadata.labels?.['cluster.x-k8s.io/set-name'], 'workers');
    assert.is(m3m.metadata.labels?.['pool'], 'workers');
    assert.equal(m3m.metadata.ownerReferences, [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'workers', uid: ms.metadata.uid ?? '' }]);
    assert.is(m3m.spec?.image?.url, 'http://172.22.0.1/images/node.img');
    assert.equal(m3m.spec?.hostSelector, { matchLabels: { role: 'worker' } });

    const config = await client.api(KubeadmConfigResource, ns).get(name);
    assert.is(config.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'kct');
    assert.is(config.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind'], 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io');
    assert.is(config.metadata.labels?.['from-bootstrap-template'], 'yes');
    assert.is(config.spec?.joinConfiguration?.nodeRegistration?.kubeletExtraArgs?.['node-labels'], 'metal3.io/uuid={{ ds.meta_data.uuid }}');
  }
  const status = await eventually('status with 3 ready', async () => {
    const s = await statusOf(ns, 'workers');
    return s.readyReplicas === 3 && s.availableReplicas === 3 ? s : undefined;
  });
  assert.is(status.replicas, 3);
  assert.is(status.fullyLabeledReplicas, 3);
  assert.is(status.selector, 'cluster.x-k8s.io/cluster-name=c1,pool=workers');
  const got = await client.api(MachineSetResource, ns).get('workers');
  assert.is(status.observedGeneration, got.metadata.generation);
  assert.ok(got.metadata.finalizers?.includes('cluster.x-k8s.io/machineset'));
  assert.is(got.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  assert.is(got.metadata.ownerReferences?.[0]?.kind, 'Cluster', 'a stand-alone set is owned by its Cluster');
});

test('readyReplicas follow Machines becoming Running', async () => {
  const ns = await setup('ms-ready');
  standIn.gate = () => false;
  await client.api(MachineSetResource, ns).create(machineSet('workers', 2));
  await eventually('2 Machines provisioning', async () => ((await statusOf(ns, 'workers')).replicas === 2 ? true : undefined));
  assert.is((await statusOf(ns, 'workers')).readyReplicas ?? 0, 0);
  const [first] = await listMachines(ns);
  standIn.gate = (m) => m.metadata.name === first?.metadata.name;
  standIn.recheck();
  await eventually('1 ready', async () => ((await statusOf(ns, 'workers')).readyReplicas === 1 ? true : undefined));
  standIn.gate = () => true;
  standIn.recheck();
  await eventually('2 ready', async () => ((await statusOf(ns, 'workers')).readyReplicas === 2 ? true : undefined));
});

test('scale down deletes the Machine marked cluster.x-k8s.io/delete-machine, then the oldest', async () => {
  const ns = await setup('ms-down');
  const sets = client.api(MachineSetResource, ns);
  await sets.create(machineSet('workers', 3));
  await eventually('3 ready', async () => ((await statusOf(ns, 'workers')).readyReplicas === 3 ? true : undefined));
  const before = await listMachines(ns);
  const byAge = [...before].sort((a, b) =>
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')
  );
  const marked = byAge[2]?.metadata.name ?? '';
  await client.api(MachineResource, ns).mergePatch(marked, { metadata: { annotations: { 'cluster.x-k8s.io/delete-machine': 'yes' } } });
  await sets.mergePatch('workers', { spec: { replicas: 2 } });
  const two = await eventually('2 Machines left', async () => {
    const list = await listMachines(ns);
    return list.length === 2 ? list : undefined;
  });
  assert.not.ok(two.some((m) => m.metadata.name === marked), 'the marked Machine went first');

  await sets.mergePatch('workers', { spec: { replicas: 1 } });
  const one = await eventually('1 Machine left', async () => {
    const list = await listMachines(ns);
    return list.length === 1 ? list : undefined;
  });
  assert.is(one[0]?.metadata.name, byAge[1]?.metadata.name, 'the youngest of the remaining two survives');
  const status = await eventually('status 1/1', async () => {
    const s = await statusOf(ns, 'workers');
    return s.replicas === 1 && s.readyReplicas === 1 ? s : undefined;
  });
  assert.is(status.availableReplicas, 1);
});

test('scaling up again after a scale down replaces only what is missing', async () => {
  const ns = await setup('ms-again');
  const sets = client.api(MachineSetResource, ns);
  await sets.create(machineSet('workers', 1));
  const [first] = await eventually('1 Machine', async () => {
    const list = await listMachines(ns);
    return list.length === 1 ? list : undefined;
  });
  await sets.mergePatch('workers', { spec: { replicas: 4 } });
  const four = await eventually('4 Machines', async () => {
    const list = await listMachines(ns);
    return list.length === 4 ? list : undefined;
  });
  assert.ok(four.some((m) => m.metadata.name === first?.metadata.name), 'the existing Machine is kept');
  assert.is((await client.api(Metal3MachineResource, ns).list()).items.length, 4);
  assert.is((await client.api(KubeadmConfigResource, ns).list()).items.length, 4);
});

test('an orphan Machine matching the selector is adopted and counted', async () => {
  const ns = await setup('ms-adopt');
  await client.api(MachineResource, ns).create({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'stray', labels: { pool: 'workers', 'cluster.x-k8s.io/cluster-name': 'c1' } },
    spec: {
      clusterName: 'c1',
      bootstrap: { dataSecretName: 'x' },
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'stray' },
    },
  });
  const ms = await client.api(MachineSetResource, ns).create(machineSet('workers', 2));
  const machines = await eventually('2 Machines', async () => {
    const list = await listMachines(ns);
    return list.length === 2 && list.every((m) => m.metadata.ownerReferences?.some((r) => r.controller)) ? list : undefined;
  });
  const stray = machines.find((m) => m.metadata.name === 'stray');
  assert.is(stray?.metadata.ownerReferences?.find((r) => r.controller)?.uid, ms.metadata.uid);
});

test('nothing is created until the Cluster exists; then the set fills up', async () => {
  const ns = await freshNamespace(env().admin.client, 'ms-nocluster');
  await createMetal3MachineTemplate(client, ns, 'm3mt');
  await createKubeadmConfigTemplate(client, ns, 'kct');
  await client.api(MachineSetResource, ns).create(machineSet('workers', 1));
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await listMachines(ns)).length, 0);
  await createCluster(client, ns, 'c1');
  await eventually('1 Machine', async () => ((await listMachines(ns)).length === 1 ? true : undefined));
});

test('a paused Cluster stops the set from creating Machines', async () => {
  const ns = await freshNamespace(env().admin.client, 'ms-paused');
  await createMetal3MachineTemplate(client, ns, 'm3mt');
  await createKubeadmConfigTemplate(client, ns, 'kct');
  await client.api(MachineSetResource, ns).create(machineSet('workers', 1));
  const { ClusterResource } = await import('@metal3-ts/generated/cluster.x-k8s.io/v1beta1');
  await client.api(ClusterResource, ns).create({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c1' }, spec: { paused: true } });
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await listMachines(ns)).length, 0);
  await client.api(ClusterResource, ns).mergePatch('c1', { spec: { paused: false } });
  await eventually('1 Machine', async () => ((await listMachines(ns)).length === 1 ? true : undefined));
});

test('a missing infrastructure template leaves no half-made objects behind', async () => {
  const ns = await freshNamespace(env().admin.client, 'ms-broken');
  await createCluster(client, ns, 'c1');
  await createKubeadmConfigTemplate(client, ns, 'kct');
  await client.api(MachineSetResource, ns).create(machineSet('workers', 1));
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await listMachines(ns)).length, 0);
  assert.is((await client.api(KubeadmConfigResource, ns).list()).items.length, 0, 'the bootstrap clone was removed again');
  await createMetal3MachineTemplate(client, ns, 'm3mt');
  // The failing reconcile retries with backoff; the template appearing is no event it watches.
  await eventually('1 Machine once the template exists', async () => ((await listMachines(ns)).length === 1 ? true : undefined), 20_000);
});

test('a set with a selector apimachinery would refuse creates nothing and does not stop the others', async () => {
  const ns = await setup('ms-badselector');
  const bad = machineSet('bad', 1);
  bad.spec!.selector = { matchExpressions: [{ key: 'pool', operator: 'Bogus', values: ['bad'] }] };
  await client.api(MachineSetResource, ns).create(bad);
  await client.api(MachineSetResource, ns).create(machineSet('good', 1));
  await eventually('the good set filled', async () => ((await statusOf(ns, 'good')).readyReplicas === 1 ? true : undefined));
  const machines = await listMachines(ns);
  assert.equal(machines.map((m) => m.metadata.labels?.['cluster.x-k8s.io/set-name']), ['good']);
});

test('deleting a MachineSet deletes its Machines first, then lets the set go', async () => {
  const ns = await setup('ms-delete');
  const sets = client.api(MachineSetResource, ns);
  await sets.create(machineSet('workers', 2));
  await eventually('2 ready', async () => ((await statusOf(ns, 'workers')).readyReplicas === 2 ? true : undefined));
  await sets.delete('workers');
  await eventually('set gone', async () => {
    try {
      await sets.get('workers');
      return undefined;
    } catch (error) {
      return isNotFound(error) ? true : undefined;
    }
  });
  assert.equal(live(await listMachines(ns)), []);
  assert.is((await listMachines(ns)).length, 0);
});

test.run();
