// The KubeadmControlPlane simulator on the real apiserver, with a stand-in for the Machine controller
// that makes Machines Running a little after they appear.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, isNotFound, Transport } from '@metal3-ts/generated';
import { KubeadmConfigResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type KubeadmControlPlane, KubeadmControlPlaneResource, newKubeadmControlPlane } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from '../simulator.ts';
import { controlPlaneSimulator } from './controlplane.ts';
import { createCluster, createMetal3MachineTemplate, eventually, infraRef, machineStandIn } from './rollout-testing.ts';

const test = suite('KubeadmControlPlane simulator on the real apiserver');
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
  const standIn = machineStandIn(deps, { delayMs: 100 });
  running = await startSimulators(deps, [...controlPlaneSimulator(deps), ...standIn.runnables]);
});
test.after.each(async () => {
  await running?.stop();
  running = undefined;
});

async function setup(
  prefix: string,
  clusterStatus: Parameters<typeof createCluster>[3] = { infrastructureReady: true, endpoint: '192.168.111.249' },
): Promise<{ ns: string; cluster: Cluster }> {
  const ns = await freshNamespace(env().admin.client, prefix);
  const cluster = await createCluster(client, ns, 'c1', clusterStatus);
  await createMetal3MachineTemplate(client, ns, 'cp-v1');
  await createMetal3MachineTemplate(client, ns, 'cp-v2', 'http://172.22.0.1/images/node-v2.img');
  return { ns, cluster };
}

function controlPlane(cluster: Cluster, replicas: number): KubeadmControlPlane {
  return newKubeadmControlPlane({
    metadata: {
      name: 'cp',
      // What the Cluster controller sets on its controlPlaneRef.
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: cluster.metadata.name ?? '', uid: cluster.metadata.uid ?? '' }],
    },
    spec: {
      replicas,
      version: 'v1.31.0',
      machineTemplate: { infrastructureRef: infraRef('cp-v1'), metadata: { labels: { tier: 'control-plane' } } },
      kubeadmConfigSpec: {
        clusterConfiguration: { apiServer: { certSANs: ['192.168.111.249'] } },
        initConfiguration: {
          nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
        },
        joinConfiguration: {
          nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': 'metal3.io/uuid={{ ds.meta_data.uuid }}' } },
        },
      },
    },
  });
}

const isRunning = (m: Readonly<Machine>) => !m.metadata.deletionTimestamp && m.status?.phase === 'Running';
const byCreation = (a: Readonly<Machine>, b: Readonly<Machine>) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '');

function statusWhen(ns: string, ok: (kcp: KubeadmControlPlane) => boolean, what: string, timeoutMs = 20_000): Promise<KubeadmControlPlane> {
  return eventually(
    what,
    async () => {
      const kcp = await client.api(KubeadmControlPlaneResource, ns).get('cp');
      return ok(kcp) ? kcp : undefined;
    },
    timeoutMs,
  );
}

test('replicas are created one at a time: the first with the init configuration, the others joining, all labelled and cloned', async () => {
  const { ns, cluster } = await setup('kcp-create');
  const machines = deps.informers.informerFor(MachineResource);
  let maxProvisioning = 0;
  const creationOrder: string[] = [];
  const unsubscribe = machines.subscribe((event) => {
    const name = event.object.metadata.name ?? '';
    if (event.object.metadata.namespace === ns && !creationOrder.includes(name)) creationOrder.push(name);
    maxProvisioning = Math.max(maxProvisioning, machines.store.list(ns).filter((m) => !isRunning(m)).length);
  });
  const created = await client.api(KubeadmControlPlaneResource, ns).create(controlPlane(cluster, 3));
  const kcp = await statusWhen(ns, (k) => k.status?.readyReplicas === 3, '3 ready');
  unsubscribe();
  assert.is(maxProvisioning, 1, 'never more than one Machine provisioning at a time');
  assert.equal(
    {
      r: kcp.status?.replicas,
      u: kcp.status?.updatedReplicas,
      un: kcp.status?.unavailableReplicas,
      i: kcp.status?.initialized,
      ok: kcp.status?.ready,
      v: kcp.status?.version,
    },
    { r: 3, u: 3, un: 0, i: true, ok: true, v: 'v1.31.0' },
  );
  assert.is(kcp.status?.selector, 'cluster.x-k8s.io/cluster-name=c1,cluster.x-k8s.io/control-plane');
  assert.ok(kcp.metadata.finalizers?.includes('kubeadm.controlplane.cluster.x-k8s.io'));

  // Creation times have a one-second grain: order by what the informer saw first.
  const list = (await client.api(MachineResource, ns).list()).items.sort((a, b) =>
    creationOrder.indexOf(a.metadata.name ?? '') - creationOrder.indexOf(b.metadata.name ?? '')
  );
  assert.is(list.length, 3);
  const configs = client.api(KubeadmConfigResource, ns);
  for (const [i, m] of list.entries()) {
    const name = m.metadata.name ?? '';
    assert.match(name, /^cp-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(m.metadata.labels, {
      tier: 'control-plane',
      'cluster.x-k8s.io/cluster-name': 'c1',
      'cluster.x-k8s.io/control-plane': '',
      'cluster.x-k8s.io/control-plane-name': 'cp',
    });
    assert.equal(m.metadata.ownerReferences, [{
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
      kind: 'KubeadmControlPlane',
      name: 'cp',
      uid: created.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    }]);
    assert.is(m.spec?.version, 'v1.31.0');
    assert.equal(m.spec?.bootstrap.configRef, { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name, namespace: ns });
    const m3m = await client.api(Metal3MachineResource, ns).get(name);
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'cp-v1');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind'], 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io');
    assert.is(m3m.metadata.labels?.['cluster.x-k8s.io/control-plane'], '');
    assert.is(m3m.metadata.ownerReferences?.[0]?.kind, 'KubeadmControlPlane');
    const config = await configs.get(name);
    assert.is(config.metadata.ownerReferences?.[0]?.kind, 'KubeadmControlPlane');
    assert.not.ok(config.metadata.ownerReferences?.[0]?.controller, 'on-create owner, not controller: the Machine controller takes over');
    if (i === 0) {
      assert.ok(config.spec?.initConfiguration, 'the first Machine initializes');
      assert.ok(config.spec?.clusterConfiguration);
      assert.is(config.spec?.joinConfiguration, undefined);
    } else {
      assert.is(config.spec?.initConfiguration, undefined);
      assert.equal(config.spec?.joinConfiguration?.controlPlane, {});
      assert.is(config.spec?.joinConfiguration?.nodeRegistration?.kubeletExtraArgs?.['node-labels'], 'metal3.io/uuid={{ ds.meta_data.uuid }}');
    }
  }
});

test('nothing is created until the Cluster infrastructure is ready', async () => {
  const { ns, cluster } = await setup('kcp-wait', { infrastructureReady: false, endpoint: '192.168.111.249' });
  await client.api(KubeadmControlPlaneResource, ns).create(controlPlane(cluster, 1));
  await statusWhen(ns, (k) => k.status?.observedGeneration !== undefined, 'a status');
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await client.api(MachineResource, ns).list()).items.length, 0);
  const kcp = await client.api(KubeadmControlPlaneResource, ns).get('cp');
  assert.equal({ r: kcp.status?.replicas, i: kcp.status?.initialized, ok: kcp.status?.ready }, { r: 0, i: false, ok: false });
  await client.api(ClusterResource, ns).mergePatchStatus('c1', { status: { infrastructureReady: true } });
  await statusWhen(ns, (k) => k.status?.initialized === true && k.status.ready === true, 'initialized');
});

/** Follows a rollout through every Machine event; returns what it saw. */
async function followRollout(ns: string, change: () => Promise<unknown>, isNew: (m: Readonly<Machine>) => boolean, replicas: number) {
  const machines = deps.informers.informerFor(MachineResource);
  let maxLive = 0;
  let minRunning = Number.POSITIVE_INFINITY;
  const deletedInOrder: string[] = [];
  const unsubscribe = machines.subscribe((event) => {
    const list = machines.store.list(ns);
    maxLive = Math.max(maxLive, list.filter((m) => !m.metadata.deletionTimestamp).length);
    minRunning = Math.min(minRunning, list.filter(isRunning).length);
    const name = event.object.metadata.name ?? '';
    if (event.object.metadata.deletionTimestamp && !deletedInOrder.includes(name)) deletedInOrder.push(name);
  });
  const before = (await client.api(MachineResource, ns).list()).items.sort(byCreation).map((m) => m.metadata.name ?? '');
  await change();
  await eventually(
    'all Machines replaced',
    () => {
      const list = machines.store.list(ns);
      return list.length === replicas && list.every((m) => isNew(m) && isRunning(m)) ? true : undefined;
    },
    30_000,
  );
  unsubscribe();
  return { before, deletedInOrder, maxLive, minRunning };
}

test('a version change replaces Machines oldest first, one at a time (scale up one, then delete the oldest outdated)', async () => {
  const { ns, cluster } = await setup('kcp-upgrade');
  const kcps = client.api(KubeadmControlPlaneResource, ns);
  await kcps.create(controlPlane(cluster, 3));
  await statusWhen(ns, (k) => k.status?.readyReplicas === 3, '3 ready');
  const seen = await followRollout(ns, () => kcps.mergePatch('cp', { spec: { version: 'v1.32.0' } }), (m) => m.spec?.version === 'v1.32.0', 3);
  assert.equal(seen.deletedInOrder, seen.before, 'outdated Machines were deleted oldest first');
  assert.is(seen.maxLive, 4, 'one extra Machine at most (maxSurge 1)');
  assert.is(seen.minRunning, 3, 'never fewer than 3 Running');
  const kcp = await statusWhen(ns, (k) => k.status?.updatedReplicas === 3 && k.status.replicas === 3 && k.status.version === 'v1.32.0', 'status after upgrade');
  assert.is(kcp.status?.readyReplicas, 3);
});

test('an infrastructure template change rolls the control plane too, cloning the new template', async () => {
  const { ns, cluster } = await setup('kcp-template');
  const kcps = client.api(KubeadmControlPlaneResource, ns);
  await kcps.create(controlPlane(cluster, 1));
  await statusWhen(ns, (k) => k.status?.readyReplicas === 1, '1 ready');
  const original = (await client.api(MachineResource, ns).list()).items.map((m) => m.metadata.name ?? '');
  const seen = await followRollout(
    ns,
    () => kcps.mergePatch('cp', { spec: { machineTemplate: { infrastructureRef: infraRef('cp-v2') } } }),
    (m) => !original.includes(m.metadata.name ?? ''),
    1,
  );
  assert.is(seen.maxLive, 2);
  assert.is(seen.minRunning, 1);
  const [only] = (await client.api(MachineResource, ns).list()).items;
  const m3m = await client.api(Metal3MachineResource, ns).get(only?.metadata.name ?? '');
  assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'cp-v2');
  assert.is(m3m.spec?.image?.url, 'http://172.22.0.1/images/node-v2.img');
});
test('scaling down removes Machines one at a time until replicas are left', async () => {
  const { ns, cluster } = await setup('kcp-down');
  const kcps = client.api(KubeadmControlPlaneResource, ns);
  await kcps.create(controlPlane(cluster, 3));
  await statusWhen(ns, (k) => k.status?.readyReplicas === 3, '3 ready');
  const oldest = (await client.api(MachineResource, ns).list()).items.sort(byCreation)[0]?.metadata.name;
  await kcps.mergePatch('cp', { spec: { replicas: 1 } });
  const kcp = await statusWhen(ns, (k) => k.status?.replicas === 1 && k.status.readyReplicas === 1, 'down to 1');
  assert.is(kcp.status?.updatedReplicas, 1);
  const left = (await client.api(MachineResource, ns).list()).items;
  assert.is(left.length, 1);
  assert.is.not(left[0]?.metadata.name, oldest, 'the oldest went');
});

test('deleting the control plane deletes its Machines, then the KCP goes', async () => {
  const { ns, cluster } = await setup('kcp-delete');
  const kcps = client.api(KubeadmControlPlaneResource, ns);
  await kcps.create(controlPlane(cluster, 2));
  await statusWhen(ns, (k) => k.status?.readyReplicas === 2, '2 ready');
  await kcps.delete('cp');
  await eventually('KCP gone', async () => {
    try {
      await kcps.get('cp');
      return undefined;
    } catch (error) {
      return isNotFound(error) ? true : undefined;
    }
  });
  assert.is((await client.api(MachineResource, ns).list()).items.length, 0);
});

test.run();
