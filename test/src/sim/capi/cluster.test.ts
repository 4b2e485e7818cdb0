// The Cluster simulator on the real apiserver, with stand-in provider objects whose status the test
// sets: ownership and label on the infrastructure cluster, endpoint copied back, readiness, phases,
// ControlPlaneInitialized, a control-plane object, pause, and the deletion order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Api, Client, type KubeObject, Transport } from '@metal3-ts/generated';
import { KubeadmControlPlaneResource, newKubeadmControlPlane } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { type Cluster, ClusterResource, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import { clusterSimulator } from './cluster.ts';
import { HOLD_FINALIZER, release, settle, waitFor, waitForGone } from './contract-testing.ts';

const test = suite('CAPI Cluster simulator on the real apiserver');
const env = withSharedEnv(test);

let client: Client;
let sims: RunningSimulators;

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  const deps = simulatorDeps(env().admin);
  sims = await startSimulators(deps, clusterSimulator(deps, { deleteRequeueMs: 200 }));
});

test.after(async () => {
  await sims?.stop();
  client?.transport.close();
});

const INFRA = { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster' };

interface Fixture {
  ns: string;
  clusters: Api<Cluster>;
  infra: Api<KubeObject>;
}

async function fixture(): Promise<Fixture> {
  const ns = await freshNamespace(env().admin.client, 'capi-cluster');
  return { ns, clusters: client.api(ClusterResource, ns), infra: client.api(Metal3ClusterResource, ns) as unknown as Api<KubeObject> };
}

/** A Metal3Cluster as a stand-in infrastructure cluster (our CRD requires the endpoint). */
const m3c = (name: string, finalizers?: string[]): KubeObject =>
  newMetal3Cluster({
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } },
  }) as unknown as KubeObject;

const clusterWithInfra = (name: string, extra: Partial<NonNullable<Cluster['spec']>> = {}): Cluster =>
  newCluster({ metadata: { name }, spec: { infrastructureRef: { ...INFRA, name }, ...extra } });

const cond = (c: Cluster | undefined, type: string) => {
  const found = c && getCondition(c, type);
  return found ? `${found.status}/${found.reason ?? ''}` : undefined;
};

test('a Cluster takes its infrastructure cluster (controller ownerRef, cluster-name label) and waits for it: Provisioning', async () => {
  const f = await fixture();
  await f.infra.create(m3c('c1'));
  const created = await f.clusters.create(clusterWithInfra('c1'));
  const infra = await waitFor('ownerRef on the Metal3Cluster', async () => {
    const m3c = await f.infra.get('c1');
    return m3c.metadata.ownerReferences?.length ? m3c : undefined;
  });
  assert.equal(infra.metadata.ownerReferences, [
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: created.metadata.uid!, controller: true, blockOwnerDeletion: true },
  ]);
  assert.is(infra.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  const cluster = await waitFor('phase Provisioning', async () => {
    const c = await f.clusters.get('c1');
    return c.status?.phase === 'Provisioning' ? c : undefined;
  });
  assert.equal(cluster.metadata.finalizers, ['cluster.cluster.x-k8s.io']);
  assert.is(cluster.status?.infrastructureReady, false);
  assert.is(cond(cluster, 'InfrastructureReady'), 'False/WaitingForInfrastructure');
  assert.is(cond(cluster, 'Ready'), 'False/WaitingForInfrastructure');
  assert.is(cluster.status?.observedGeneration, cluster.metadata.generation);
});

test('infrastructure ready: endpoint copied back, infrastructureReady, InfrastructureReady True, Provisioned', async () => {
  const f = await fixture();
  await f.infra.create(m3c('c1'));
  await f.clusters.create(clusterWithInfra('c1'));
  await waitFor('Provisioning', async () => ((await f.clusters.get('c1')).status?.phase === 'Provisioning' ? true : undefined));
  assert.is((await f.clusters.get('c1')).spec?.controlPlaneEndpoint, undefined, 'not copied before the infrastructure is ready');
  await f.infra.mergePatchStatus('c1', { status: { ready: true } } as never);
  const cluster = await waitFor('Provisioned', async () => {
    const c = await f.clusters.get('c1');
    return c.status?.phase === 'Provisioned' ? c : undefined;
  });
  assert.equal(cluster.spec?.controlPlaneEndpoint, { host: '192.168.111.249', port: 6443 });
  assert.is(cluster.status?.infrastructureReady, true);
  assert.is(cond(cluster, 'InfrastructureReady'), 'True/');
  assert.is(cond(cluster, 'Ready'), 'True/');
});

test('a Cluster created before its infrastructure cluster adopts it when it appears; a Cluster without refs is Pending', async () => {
  const f = await fixture();
  await f.clusters.create(clusterWithInfra('late'));
  await f.clusters.create(newCluster({ metadata: { name: 'bare' }, spec: {} }));
  await waitFor('bare Cluster Pending', async () => ((await f.clusters.get('bare')).status?.phase === 'Pending' ? true : undefined));
  await waitFor('late Cluster Provisioning', async () => ((await f.clusters.get('late')).status?.phase === 'Provisioning' ? true : undefined));
  await f.infra.create(m3c('late'));
  await waitFor(
    'the late Metal3Cluster owned',
    async () => ((await f.infra.get('late')).metadata.labels?.['cluster.x-k8s.io/cluster-name'] === 'late' ? true : undefined),
  );
});

test('a paused Cluster is left alone until unpaused; a paused infrastructure cluster is not adopted', async () => {
  const f = await fixture();
  await f.infra.create(m3c('p'));
  await f.clusters.create(clusterWithInfra('p', { paused: true }));
  await settle(400);
  let cluster = await f.clusters.get('p');
  assert.is(cluster.metadata.finalizers, undefined);
  assert.is(cluster.status?.phase, undefined);
  await f.infra.mergePatch('p', { metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } } });
  await f.clusters.mergePatch('p', { spec: { paused: false } });
  cluster = await waitFor('reconciled once unpaused', async () => {
    const c = await f.clusters.get('p');
    return c.status?.phase ? c : undefined;
  });
  assert.equal(cluster.metadata.finalizers, ['cluster.cluster.x-k8s.io']);
  await settle(300);
  assert.is((await f.infra.get('p')).metadata.ownerReferences, undefined, 'the annotated infrastructure cluster is not touched');
  await f.infra.mergePatch('p', { metadata: { annotations: { 'cluster.x-k8s.io/paused': null } } });
  await waitFor('adopted once its annotation is gone', async () => ((await f.infra.get('p')).metadata.ownerReferences?.length ? true : undefined));
});

test('ControlPlaneInitialized turns True when the first control-plane Machine gets a nodeRef', async () => {
  const f = await fixture();
  await f.infra.create(m3c('c1'));
  await f.clusters.create(clusterWithInfra('c1'));
  await waitFor('MissingNodeRef', async () => (cond(await f.clusters.get('c1'), 'ControlPlaneInitialized') === 'False/MissingNodeRef' ? true : undefined));
  const machines = client.api(MachineResource, f.ns);
  await machines.create(newMachine({
    metadata: { name: 'cp-0', labels: { 'cluster.x-k8s.io/control-plane': '' } },
    spec: {
      clusterName: 'c1',
      bootstrap: { dataSecretName: 'x' },
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'cp-0' },
    },
  }));
  await machines.mergePatchStatus('cp-0', { status: { nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'node-0' } } });
  await waitFor('ControlPlaneInitialized True', async () => (cond(await f.clusters.get('c1'), 'ControlPlaneInitialized') === 'True/' ? true : undefined));
});

test('a control-plane object is owned too; its ready/initialized/endpoint reach the Cluster', async () => {
  const f = await fixture();
  const kcps = client.api(KubeadmControlPlaneResource, f.ns);
  await kcps.create(newKubeadmControlPlane({
    metadata: { name: 'c1-cp' },
    spec: {
      version: 'v1.31.0',
      kubeadmConfigSpec: {},
      machineTemplate: { infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 't' } },
    },
  }));
  await f.clusters.create(
    newCluster({
      metadata: { name: 'c1' },
      spec: { controlPlaneRef: { apiVersion: KubeadmControlPlaneResource.apiVersion, kind: 'KubeadmControlPlane', name: 'c1-cp' } },
    }),
  );
  const kcp = await waitFor('KCP owned', async () => {
    const k = await kcps.get('c1-cp');
    return k.metadata.ownerReferences?.length ? k : undefined;
  });
  assert.is(kcp.metadata.ownerReferences?.[0]?.kind, 'Cluster');
  assert.is(kcp.metadata.ownerReferences?.[0]?.controller, true);
  let cluster = await waitFor('WaitingForControlPlane', async () => {
    const c = await f.clusters.get('c1');
    return cond(c, 'ControlPlaneReady') === 'False/WaitingForControlPlane' ? c : undefined;
  });
  assert.is(cond(cluster, 'ControlPlaneInitialized'), 'False/WaitingForControlPlaneProviderInitialized');
  await kcps.mergePatchStatus('c1-cp', { status: { ready: true, initialized: true } });
  cluster = await waitFor('control plane ready', async () => {
    const c = await f.clusters.get('c1');
    return c.status?.controlPlaneReady ? c : undefined;
  });
  assert.is(cond(cluster, 'ControlPlaneReady'), 'True/');
  assert.is(cond(cluster, 'ControlPlaneInitialized'), 'True/');
});

test('deleting a Cluster deletes its Machines, waits for them, then deletes and waits for its infrastructure cluster', async () => {
  const f = await fixture();
  await f.infra.create(m3c('c1', [HOLD_FINALIZER]));
  const created = await f.clusters.create(clusterWithInfra('c1'));
  await waitFor('finalizer', async () => ((await f.clusters.get('c1')).metadata.finalizers?.length ? true : undefined));
  const machines = client.api(MachineResource, f.ns) as unknown as Api<KubeObject>;
  const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: created.metadata.uid! };
  const machine = (name: string, owned: boolean) =>
    newMachine({
      metadata: { name, finalizers: [HOLD_FINALIZER], labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, ...(owned ? { ownerReferences: [owner] } : {}) },
      spec: {
        clusterName: 'c1',
        bootstrap: { dataSecretName: 'x' },
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name },
      },
    }) as unknown as KubeObject;
  await machines.create(machine('owned', true));
  await machines.create(machine('indirect', false));
  await f.clusters.delete('c1');

  await waitFor('the owned Machine deleted', async () => ((await machines.get('owned')).metadata.deletionTimestamp ? true : undefined));
  await settle(300);
  assert.not.ok((await machines.get('indirect')).metadata.deletionTimestamp, 'a Machine the Cluster does not own is not deleted by it');
  assert.not.ok((await f.infra.get('c1')).metadata.deletionTimestamp, 'the infrastructure waits for the Machines');
  assert.is((await f.clusters.get('c1')).status?.phase, 'Deleting');

  await release(machines, 'owned');
  await machines.delete('indirect');
  await release(machines, 'indirect');
  await waitFor('the infrastructure cluster deleted', async () => ((await f.infra.get('c1')).metadata.deletionTimestamp ? true : undefined));
  await settle(300);
  assert.ok(await f.clusters.get('c1'), 'the Cluster waits for its infrastructure cluster');
  assert.is(cond(await f.clusters.get('c1'), 'InfrastructureReady'), 'False/Deleting');

  await release(f.infra, 'c1');
  await waitForGone(f.clusters as unknown as Api<KubeObject>, 'c1');
});

test.run();
