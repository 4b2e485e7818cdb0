// The Machine simulator on the real apiserver and a workload apiserver, with stand-in provider
// objects (KubeadmConfig, Metal3Machine) whose status the test sets, and Nodes the test creates:
// adoption, Pending → Provisioning → Provisioned → Running, NodeHealthy, failures, pause, and the
// deletion order (infrastructure, bootstrap, Node).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import process from 'node:process';
import { type Api, Client, type KubeObject, Transport } from '@metal3-ts/generated';
import { KubeadmConfigResource, newKubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newNode, NodeResource, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import type { WorkloadCluster } from '../../envtest/workload.ts';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import { HOLD_FINALIZER, release, settle, waitFor, waitForGone } from './contract-testing.ts';
import { machineSimulator } from './machine.ts';

const test = suite('CAPI Machine simulator on the real apiserver');
const env = withSharedEnv(test);

// Unique per process: other suites sharing the environment may start workload clusters too.
const WL = `capi-m-${process.pid}`;

let client: Client;
let workload: Client;
let wl: WorkloadCluster;
let sims: RunningSimulators;

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  wl = await env().startWorkloadCluster(WL);
  workload = new Client(Transport.fromConnection(wl.apiserver.admin));
  const deps = simulatorDeps(env().admin);
  sims = await startSimulators(deps, machineSimulator(deps, { nodePollMs: 100, nodeResyncMs: 300 }));
});

test.after(async () => {
  await sims?.stop();
  client?.transport.close();
  workload?.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

interface Fixture {
  ns: string;
  machines: Api<Machine>;
  configs: Api<KubeObject>;
  infra: Api<KubeObject>;
}

/** A namespace with Cluster `c1` and, unless told otherwise, its kubeconfig Secret for the workload apiserver. */
async function fixture(options: { kubeconfig?: boolean } = {}): Promise<Fixture> {
  const ns = await freshNamespace(env().admin.client, 'capi-machine');
  await client.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'c1' }, spec: {} }));
  if (options.kubeconfig !== false) await createKubeconfig(ns);
  return {
    ns,
    machines: client.api(MachineResource, ns),
    configs: client.api(KubeadmConfigResource, ns) as unknown as Api<KubeObject>,
    infra: client.api(Metal3MachineResource, ns) as unknown as Api<KubeObject>,
  };
}

const createKubeconfig = (ns: string) => client.api(SecretResource, ns).create(wl.kubeconfigSecret(ns, 'c1') as unknown as Secret);

const kubeadmConfig = (name: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject =>
  newKubeadmConfig({ metadata: { name, ...meta }, spec: {} }) as unknown as KubeObject;

const metal3Machine = (name: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject =>
  newMetal3Machine({
    metadata: { name, ...meta },
    spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' } },
  }) as unknown as KubeObject;

function machine(name: string, options: { labels?: Record<string, string>; bootstrap?: boolean; annotations?: Record<string, string> } = {}): Machine {
  return newMachine({
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}), ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: {
      clusterName: 'c1',
      bootstrap: options.bootstrap === false
        ? { dataSecretName: `${name}-own` }
        : { configRef: { apiVersion: KubeadmConfigResource.apiVersion, kind: 'KubeadmConfig', name } },
      infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
    },
  });
}

/** A Metal3Machine as its provider reports it once the host is provisioned. */
async function infraReady(f: Fixture, name: string, providerID: string): Promise<void> {
  await f.infra.mergePatch(name, { spec: { providerID } } as never);
  await f.infra.mergePatchStatus(
    name,
    { status: { ready: true, addresses: [{ type: 'InternalIP', address: '192.168.111.20' }, { type: 'Hostname', address: name }] } } as never,
  );
}

/** The kubelet of the workload cluster registering a Ready Node. */
async function joinNode(name: string, providerID: string): Promise<void> {
  const nodes = workload.api(NodeResource);
  await nodes.create(newNode({ metadata: { name }, spec: { providerID } }));
  await nodes.mergePatchStatus(name, { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'False' }] } });
}

const cond = (m: Machine | undefined, type: string) => {
  const found = m && getCondition(m, type);
  return found ? `${found.status}/${found.reason ?? ''}` : undefined;
};

const phaseIs = (f: Fixture, name: string, phase: string) =>
  waitFor(`Machine ${name} ${phase}`, async () => {
    const m = await f.machines.get(name);
    return m.status?.phase === phase ? m : undefined;
  });

test('a Machine takes its bootstrap config and infrastructure machine and waits for them: Pending', async () => {
  const f = await fixture();
  await f.configs.create(kubeadmConfig('m-0'));
  await f.infra.create(
    metal3Machine('m-0', {
      ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: '6b3a1f8e-0000-4000-8000-000000000001' }],
    }),
  );
  const created = await f.machines.create(machine('m-0'));
  const m = await phaseIs(f, 'm-0', 'Pending');
  assert.equal(m.metadata.finalizers, ['machine.cluster.x-k8s.io']);
  assert.is(m.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  assert.equal(
    m.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]),
    [['Cluster', 'c1', undefined]],
    'a stand-alone Machine is owned by its Cluster',
  );
  assert.is(cond(m, 'BootstrapReady'), 'False/WaitingForDataSecret');
  assert.is(cond(m, 'InfrastructureReady'), 'False/WaitingForInfrastructure');
  assert.is(cond(m, 'Ready'), 'False/WaitingForInfrastructure');
  const controllerRef = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    name: 'm-0',
    uid: created.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
  for (const api of [f.configs, f.infra]) {
    const obj = await waitFor('the Machine as controller', async () => {
      const o = await api.get('m-0');
      return o.metadata.ownerReferences?.some((r) => r.kind === 'Machine') ? o : undefined;
    });
    assert.equal(obj.metadata.ownerReferences, [controllerRef], `${obj.kind}: the MachineSet owner set on creation is dropped`);
    assert.is(obj.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'c1');
  }
});

test('bootstrap ready → dataSecretName (Provisioning); infrastructure ready → providerID, addresses (Provisioned); Node → nodeRef (Running)', async () => {
  const f = await fixture({ kubeconfig: false });
  await f.configs.create(kubeadmConfig('m-1'));
  await f.infra.create(metal3Machine('m-1'));
  await f.machines.create(machine('m-1'));
  await phaseIs(f, 'm-1', 'Pending');

  await f.configs.mergePatchStatus('m-1', { status: { ready: true, dataSecretName: 'm-1-bootstrap' } } as never);
  let m = await phaseIs(f, 'm-1', 'Provisioning');
  assert.is(m.spec?.bootstrap.dataSecretName, 'm-1-bootstrap');
  assert.is(m.status?.bootstrapReady, true);
  assert.is(cond(m, 'BootstrapReady'), 'True/');

  const providerID = `metal3://${f.ns}/host-1/m-1`;
  await infraReady(f, 'm-1', providerID);
  m = await phaseIs(f, 'm-1', 'Provisioned');
  assert.is(m.spec?.providerID, providerID);
  assert.is(m.status?.infrastructureReady, true);
  assert.equal(m.status?.addresses, [{ type: 'InternalIP', address: '192.168.111.20' }, { type: 'Hostname', address: 'm-1' }]);
  assert.is(cond(m, 'Ready'), 'True/');
  assert.is(cond(m, 'NodeHealthy'), 'False/WaitingForNodeRef', 'no workload cluster to ask yet: unchanged, as CAPI');

  // The Node registers before the kubeconfig Secret exists: the Machine finds it once it can look.
  await joinNode(`node-${f.ns}`, providerID);
  await settle(300);
  assert.is((await f.machines.get('m-1')).status?.nodeRef, undefined);
  await createKubeconfig(f.ns);
  m = await phaseIs(f, 'm-1', 'Running');
  assert.equal([m.status?.nodeRef?.kind, m.status?.nodeRef?.name], ['Node', `node-${f.ns}`]);
  assert.ok(m.status?.nodeRef?.uid);
  assert.is(cond(m, 'NodeHealthy'), 'True/');
  assert.ok(m.status?.lastUpdated);
});

test('a Machine created before its infrastructure machine takes it when it appears', async () => {
  const f = await fixture();
  await f.machines.create(machine('late', { bootstrap: false }));
  await phaseIs(f, 'late', 'Pending');
  await f.infra.create(metal3Machine('late'));
  await waitFor('the late Metal3Machine owned', async () => ((await f.infra.get('late')).metadata.ownerReferences?.[0]?.kind === 'Machine' ? true : undefined));
  const providerID = `metal3://${f.ns}/host/late`;
  await infraReady(f, 'late', providerID);
  const m = await phaseIs(f, 'late', 'Provisioned');
  assert.is(m.status?.bootstrapReady, undefined, 'a Machine with its own data secret has no bootstrap config to wait for (CAPI v1.10)');
});

test('NodeHealthy: NodeProvisioning until the Node registers, True when it is Ready, False/NodeNotFound once it disappears', async () => {
  const f = await fixture();
  await f.infra.create(metal3Machine('m-2'));
  await f.machines.create(machine('m-2', { bootstrap: false }));
  const providerID = `metal3://${f.ns}/host-2/m-2`;
  await infraReady(f, 'm-2', providerID);
  await waitFor(
    'NodeProvisioning while the workload cluster has no such Node',
    async () => cond(await f.machines.get('m-2'), 'NodeHealthy') === 'False/NodeProvisioning' ? true : undefined,
  );
  await joinNode(`node2-${f.ns}`, providerID);
  await phaseIs(f, 'm-2', 'Running');
  await workload.api(NodeResource).delete(`node2-${f.ns}`);
  const m = await waitFor('NodeNotFound', async () => {
    const mm = await f.machines.get('m-2');
    return cond(mm, 'NodeHealthy') === 'False/NodeNotFound' ? mm : undefined;
  });
  assert.is(m.status?.phase, 'Running', 'the nodeRef stays, so does the phase');
});

test('a failure reported by the infrastructure machine fails the Machine', async () => {
  const f = await fixture();
  await f.infra.create(metal3Machine('bad'));
  await f.machines.create(machine('bad', { bootstrap: false }));
  await phaseIs(f, 'bad', 'Pending');
  await f.infra.mergePatchStatus('bad', { status: { failureReason: 'CreateError', failureMessage: 'no host available' } } as never);
  const m = await phaseIs(f, 'bad', 'Failed');
  assert.is(m.status?.failureReason, 'CreateError');
  assert.ok(m.status?.failureMessage?.endsWith('with name "bad": no host available'));
});

test('a paused Machine is left alone', async () => {
  const f = await fixture();
  await f.infra.create(metal3Machine('p'));
  await f.machines.create(machine('p', { bootstrap: false, annotations: { 'cluster.x-k8s.io/paused': '' } }));
  await settle(400);
  const m = await f.machines.get('p');
  assert.is(m.metadata.finalizers, undefined);
  assert.is(m.status?.phase, undefined);
  assert.is((await f.infra.get('p')).metadata.ownerReferences, undefined);
  await f.machines.mergePatch('p', { metadata: { annotations: null } });
  await phaseIs(f, 'p', 'Pending');
});

test('deletion deletes the infrastructure machine and waits, then the bootstrap config, then the Node, then lets go', async () => {
  const f = await fixture();
  // Another control-plane Machine keeps the control plane alive, so the Node may be deleted.
  await f.machines.create(machine('cp-0', { bootstrap: false, labels: { 'cluster.x-k8s.io/control-plane': '' } }));
  await f.configs.create(kubeadmConfig('w-0', { finalizers: [HOLD_FINALIZER] }));
  await f.infra.create(metal3Machine('w-0', { finalizers: [HOLD_FINALIZER] }));
  await f.machines.create(machine('w-0'));
  await f.configs.mergePatchStatus('w-0', { status: { ready: true, dataSecretName: 'w-0-bootstrap' } } as never);
  const providerID = `metal3://${f.ns}/host-w/w-0`;
  await infraReady(f, 'w-0', providerID);
  const node = `nodew-${f.ns}`;
  await joinNode(node, providerID);
  await phaseIs(f, 'w-0', 'Running');

  await f.machines.delete('w-0');
  await waitFor('the Metal3Machine deleted', async () => ((await f.infra.get('w-0')).metadata.deletionTimestamp ? true : undefined));
  const deleting = await phaseIs(f, 'w-0', 'Deleting');
  assert.is(cond(deleting, 'NodeHealthy'), 'False/Deleting');
  await settle(300);
  assert.not.ok((await f.configs.get('w-0')).metadata.deletionTimestamp, 'the bootstrap config waits for the infrastructure machine');

  await release(f.infra, 'w-0');
  await waitFor('the KubeadmConfig deleted', async () => ((await f.configs.get('w-0')).metadata.deletionTimestamp ? true : undefined));
  await settle(300);
  assert.ok(await workload.api(NodeResource).get(node), 'the Node waits for the bootstrap config');
  assert.ok(await f.machines.get('w-0'));

  await release(f.configs, 'w-0');
  await waitForGone(f.machines as unknown as Api<KubeObject>, 'w-0');
  await waitForGone(workload.api(NodeResource) as unknown as Api<KubeObject>, node);
});

test('the Node of a Machine is kept when no other control-plane Machine is active', async () => {
  const f = await fixture();
  await f.infra.create(metal3Machine('solo'));
  await f.machines.create(machine('solo', { bootstrap: false }));
  const providerID = `metal3://${f.ns}/host-s/solo`;
  await infraReady(f, 'solo', providerID);
  const node = `nodes-${f.ns}`;
  await joinNode(node, providerID);
  await phaseIs(f, 'solo', 'Running');
  await f.machines.delete('solo');
  await waitForGone(f.machines as unknown as Api<KubeObject>, 'solo');
  await waitForGone(f.infra, 'solo');
  assert.ok(await workload.api(NodeResource).get(node), 'CAPI does not delete the Node when no control-plane member is left');
});

test.run();
