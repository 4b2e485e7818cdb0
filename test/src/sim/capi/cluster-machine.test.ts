// The Cluster and Machine simulators together, as CAPI core runs them: a control-plane Machine
// reaching Running initializes the Cluster's control plane; deleting the Cluster deletes the Machine
// it adopted (and, through it, the Machine's provider objects), then the infrastructure cluster,
// and leaves the workload Node alone because the whole cluster is going.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import process from 'node:process';
import { type Api, Client, type KubeObject, Transport } from '@metal3-ts/generated';
import { KubeadmConfigResource, newKubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newNode, NodeResource, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3ClusterResource, Metal3MachineResource, newMetal3Cluster, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import type { WorkloadCluster } from '../../envtest/workload.ts';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import { clusterSimulator } from './cluster.ts';
import { waitFor, waitForGone } from './contract-testing.ts';
import { machineSimulator } from './machine.ts';

const test = suite('CAPI Cluster and Machine simulators together');
const env = withSharedEnv(test);
const WL = `capi-cm-${process.pid}`;

let client: Client;
let workload: Client;
let wl: WorkloadCluster;
let sims: RunningSimulators;

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  wl = await env().startWorkloadCluster(WL);
  workload = new Client(Transport.fromConnection(wl.apiserver.admin));
  const deps = simulatorDeps(env().admin);
  sims = await startSimulators(deps, [...clusterSimulator(deps, { deleteRequeueMs: 200 }), ...machineSimulator(deps, { nodePollMs: 100 })]);
});

test.after(async () => {
  await sims?.stop();
  client?.transport.close();
  workload?.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

const INFRA_GROUP_VERSION = Metal3MachineResource.apiVersion;

test('a Running control-plane Machine initializes the Cluster; deleting the Cluster takes everything down but the Node', async () => {
  const ns = await freshNamespace(env().admin.client, 'capi-cm');
  const clusters = client.api(ClusterResource, ns);
  const machines = client.api(MachineResource, ns);
  const m3cs = client.api(Metal3ClusterResource, ns) as unknown as Api<KubeObject>;
  const m3ms = client.api(Metal3MachineResource, ns) as unknown as Api<KubeObject>;
  const configs = client.api(KubeadmConfigResource, ns) as unknown as Api<KubeObject>;
  const nodes = workload.api(NodeResource);

  await m3cs.create(
    newMetal3Cluster({ metadata: { name: 'c1' }, spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } } }) as unknown as KubeObject,
  );
  await clusters.create(
    newCluster({ metadata: { name: 'c1' }, spec: { infrastructureRef: { apiVersion: INFRA_GROUP_VERSION, kind: 'Metal3Cluster', name: 'c1' } } }),
  );
  await client.api(SecretResource, ns).create(wl.kubeconfigSecret(ns, 'c1') as unknown as Secret);
  await configs.create(newKubeadmConfig({ metadata: { name: 'cp-0' }, spec: {} }) as unknown as KubeObject);
  await m3ms.create(
    newMetal3Machine({
      metadata: { name: 'cp-0' },
      spec: { image: { url: 'http://172.22.0.1/i.img', checksum: 'http://172.22.0.1/i.img.sha256sum' } },
    }) as unknown as KubeObject,
  );
  await machines.create(newMachine({
    metadata: { name: 'cp-0', labels: { 'cluster.x-k8s.io/control-plane': '' } },
    spec: {
      clusterName: 'c1',
      bootstrap: { configRef: { apiVersion: KubeadmConfigResource.apiVersion, kind: 'KubeadmConfig', name: 'cp-0' } },
      infrastructureRef: { apiVersion: INFRA_GROUP_VERSION, kind: 'Metal3Machine', name: 'cp-0' },
    },
  }));

  // The providers' part, played by the test.
  await m3cs.mergePatchStatus('c1', { status: { ready: true } } as never);
  await configs.mergePatchStatus('cp-0', { status: { ready: true, dataSecretName: 'cp-0' } } as never);
  const providerID = `metal3://${ns}/host-0/cp-0`;
  await m3ms.mergePatch('cp-0', { spec: { providerID } } as never);
  await m3ms.mergePatchStatus('cp-0', { status: { ready: true } } as never);
  const nodeName = `cp-${ns}`;
  await nodes.create(newNode({ metadata: { name: nodeName }, spec: { providerID } }));

  await waitFor('Machine Running', async () => ((await machines.get('cp-0')).status?.phase === 'Running' ? true : undefined));
  const cluster = await waitFor('Cluster Provisioned and initialized', async () => {
    const c = await clusters.get('c1');
    return c.status?.phase === 'Provisioned' && getCondition(c, 'ControlPlaneInitialized')?.status === 'True' ? c : undefined;
  });
  assert.equal(cluster.spec?.controlPlaneEndpoint, { host: '192.168.111.249', port: 6443 });
  const machine: Machine = await machines.get('cp-0');
  assert.ok(machine.metadata.ownerReferences?.some((r) => r.kind === 'Cluster' && r.uid === cluster.metadata.uid), 'the Machine was adopted by its Cluster');

  await clusters.delete('c1');
  await waitForGone(machines as unknown as Api<KubeObject>, 'cp-0');
  await waitForGone(m3ms, 'cp-0');
  await waitForGone(configs, 'cp-0');
  await waitForGone(m3cs, 'c1');
  await waitForGone(clusters as unknown as Api<KubeObject>, 'c1');
  assert.ok(await nodes.get(nodeName), 'no Node deletion while the whole Cluster is being deleted');
});

test.run();
