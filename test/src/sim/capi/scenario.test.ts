// The scenario, with only simulators on the real apiserver: Cluster, Machine, MachineSet,
// MachineDeployment and the kubeadm bootstrap simulator run as CAPI core and CABPK would; the test
// plays the infrastructure provider (a stand-in Metal3Machine controller that, once a Machine owns the
// Metal3Machine and has bootstrap data, sets `spec.providerID` and `status.ready` and registers the
// Node in a workload cluster started by the test environment).
//
// A MachineDeployment of 3 reaches 3 Running Machines; changing its infrastructure template ref rolls
// them one at a time, and at every state the Machine informer reports there are never more than
// replicas + maxSurge live Machines nor fewer than replicas - maxUnavailable Running ones.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import process from 'node:process';
import { Client, isNotFound, Transport } from '@metal3-ts/generated';
import { KubeadmConfigResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import {
  ClusterResource,
  type Machine,
  type MachineDeployment,
  MachineDeploymentResource,
  MachineResource,
  newCluster,
  newMachineDeployment,
} from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newNode, NodeResource, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3ClusterResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3Cluster,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import type { WorkloadCluster } from '../../envtest/workload.ts';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { bootstrapSimulator } from '../bootstrap/index.ts';
import { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from '../simulator.ts';
import { clusterSimulator } from './cluster.ts';
import { machineDeploymentSimulator } from './machinedeployment.ts';
import { machineSimulator } from './machine.ts';
import { machineSetSimulator } from './machineset.ts';
import { bootstrapRef, createKubeadmConfigTemplate, createMetal3MachineTemplate, eventually, infraRef } from './rollout-testing.ts';

const test = suite('scenario: a MachineDeployment of 3 with only simulators');
const env = withSharedEnv(test);
const WL = `capi-scenario-${process.pid}`;
const REPLICAS = 3;
/** How long the stand-in "provisions" a Metal3Machine before it reports ready. */
const PROVISION_MS = 150;

let client: Client;
let workload: Client;
let wl: WorkloadCluster;
let deps: SimulatorDeps;
let sims: RunningSimulators | undefined;

/**
 * The infrastructure provider's part, reduced to the contract (seed 002): a Metal3Machine owned by a
 * Machine whose bootstrap data exists gets, after PROVISION_MS, a Node in the workload cluster, then
 * `spec.providerID` and `status.ready`.
 */
function infrastructureStandIn(deps: SimulatorDeps): Runnable {
  const m3ms = deps.informers.informerFor(Metal3MachineResource);
  const machines = deps.informers.informerFor(MachineResource);
  const firstSeen = new Map<string, number>();
  return controllerFor('test-metal3machine-standin', Metal3MachineResource, { informers: deps.informers, log: deps.log })
    .watches(
      MachineResource,
      (m: Readonly<Machine>) =>
        m.spec?.infrastructureRef.kind === 'Metal3Machine' ? [{ namespace: m.metadata.namespace ?? '', name: m.spec.infrastructureRef.name ?? '' }] : [],
    )
    .build(async (request) => {
      const m3m = m3ms.store.get(request);
      if (!m3m || m3m.metadata.deletionTimestamp || m3m.status?.ready) return {};
      const owner = getOwnerByKind(m3m, 'cluster.x-k8s.io', 'Machine');
      const machine = owner ? machines.store.get({ namespace: request.namespace ?? '', name: owner.name }) : undefined;
      if (!machine?.spec?.bootstrap.dataSecretName) return {};
      const uid = m3m.metadata.uid ?? '';
      const seen = firstSeen.get(uid) ?? Date.now();
      firstSeen.set(uid, seen);
      const wait = seen + PROVISION_MS - Date.now();
      if (wait > 0) return { requeueAfterMs: wait };
      const providerID = `metal3://${request.namespace}/${request.name}`;
      const nodes = workload.api(NodeResource);
      try {
        await nodes.create(newNode({ metadata: { name: request.name, labels: { 'kubernetes.io/hostname': request.name } }, spec: { providerID } }));
      } catch (error) {
        if (!(error instanceof Error && error.name === 'AlreadyExistsError')) throw error;
      }
      await nodes.mergePatchStatus(request.name, {
        status: {
          conditions: [{
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: new Date().toISOString(),
            lastTransitionTime: new Date().toISOString(),
          }],
        },
      });
      const api = deps.client.api(Metal3MachineResource, request.namespace);
      await api.mergePatch(request.name, { spec: { providerID } });
      await api.mergePatchStatus(request.name, { status: { ready: true, addresses: [{ type: 'Hostname', address: request.name }] } } as Partial<Metal3Machine>);
      return {};
    });
}

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  wl = await env().startWorkloadCluster(WL);
  workload = new Client(Transport.fromConnection(wl.apiserver.admin));
  deps = simulatorDeps(env().admin);
  sims = await startSimulators(deps, [
    ...clusterSimulator(deps),
    ...machineSimulator(deps, { nodePollMs: 50 }),
    ...machineSetSimulator(deps),
    ...machineDeploymentSimulator(deps),
    ...bootstrapSimulator(deps),
    infrastructureStandIn(deps),
  ]);
});

test.after(async () => {
  await sims?.stop();
  client?.transport.close();
  workload?.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

const isRunning = (m: Readonly<Machine>) => !m.metadata.deletionTimestamp && m.status?.phase === 'Running';

function deploymentWhen(ns: string, ok: (md: MachineDeployment) => boolean, what: string): Promise<MachineDeployment> {
  return eventually(
    what,
    async () => {
      const md = await client.api(MachineDeploymentResource, ns).get('workers');
      return ok(md) ? md : undefined;
    },
    45_000,
  );
}

test('3 Running Machines, then a rolling update that replaces them one at a time within maxSurge 1 / maxUnavailable 0', async () => {
  const ns = await freshNamespace(env().admin.client, 'capi-scenario');
  await client.api(SecretResource, ns).create(wl.kubeconfigSecret(ns, 'c1') as unknown as Secret);
  const m3cs = client.api(Metal3ClusterResource, ns);
  await m3cs.create(newMetal3Cluster({ metadata: { name: 'c1' }, spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } } }));
  await client.api(ClusterResource, ns).create(
    newCluster({ metadata: { name: 'c1' }, spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: 'c1' } } }),
  );
  await m3cs.mergePatchStatus('c1', { status: { ready: true } });
  await createMetal3MachineTemplate(client, ns, 'workers-v1');
  await createMetal3MachineTemplate(client, ns, 'workers-v2', 'http://172.22.0.1/images/node-v2.img');
  await createKubeadmConfigTemplate(client, ns, 'workers');

  const mds = client.api(MachineDeploymentResource, ns);
  await mds.create(
    newMachineDeployment({
      metadata: { name: 'workers' },
      spec: {
        clusterName: 'c1',
        replicas: REPLICAS,
        selector: { matchLabels: { pool: 'workers' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: { pool: 'workers' } },
          spec: { clusterName: 'c1', version: 'v1.31.0', bootstrap: { configRef: bootstrapRef('workers') }, infrastructureRef: infraRef('workers-v1') },
        },
      },
    }),
  );

  const first = await deploymentWhen(ns, (md) => md.status?.readyReplicas === REPLICAS && md.status.availableReplicas === REPLICAS, '3 ready Machines');
  assert.is(first.status?.phase, 'Running');
  const machinesApi = client.api(MachineResource, ns);
  const original = (await machinesApi.list()).items;
  assert.is(original.filter(isRunning).length, REPLICAS);
  for (const m of original) {
    assert.ok(m.status?.nodeRef?.name, 'nodeRef found through the providerID in the workload cluster');
    assert.is(m.spec?.providerID, `metal3://${ns}/${m.metadata.name}`);
    assert.ok(m.spec?.bootstrap.dataSecretName, 'bootstrap data from the bootstrap simulator');
    const m3m = await client.api(Metal3MachineResource, ns).get(m.metadata.name ?? '');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'workers-v1');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-groupkind'], 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io');
    assert.equal(
      m3m.metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}/${r.controller === true}`),
      [`Machine/${m.metadata.name}/true`],
      'the Machine controller replaced the MachineSet on-create owner',
    );
  }

  // Follow the rollout through every state the Machine informer reports.
  const machines = deps.informers.informerFor(MachineResource);
  let maxLive = 0;
  let minRunning = Number.POSITIVE_INFINITY;
  const transitions: string[] = [];
  const oldNames = new Set(original.map((m) => m.metadata.name ?? ''));
  const unsubscribe = machines.subscribe(() => {
    const list = machines.store.list(ns);
    const live = list.filter((m) => !m.metadata.deletionTimestamp);
    const running = list.filter(isRunning);
    maxLive = Math.max(maxLive, live.length);
    minRunning = Math.min(minRunning, running.length);
    const oldRunning = running.filter((m) => oldNames.has(m.metadata.name ?? '')).length;
    const label = `${oldRunning} old + ${running.length - oldRunning} new running`;
    if (transitions.at(-1) !== label) transitions.push(label);
  });
  const patched = await mds.mergePatch('workers', { spec: { template: { spec: { infrastructureRef: infraRef('workers-v2') } } } });
  await deploymentWhen(
    ns,
    (md) =>
      (md.status?.observedGeneration ?? 0) >= (patched.metadata.generation ?? 0) && md.status?.updatedReplicas === REPLICAS &&
      md.status.availableReplicas === REPLICAS && md.status.replicas === REPLICAS,
    'rollout to finish',
  );
  await eventually(
    'old Machines gone',
    () => {
      const list = machines.store.list(ns);
      return list.length === REPLICAS && list.every((m) => !oldNames.has(m.metadata.name ?? '') && isRunning(m)) ? true : undefined;
    },
    30_000,
  );
  unsubscribe();

  assert.ok(maxLive <= REPLICAS + 1, `never more than maxSurge extra Machines (saw ${maxLive})`);
  assert.ok(minRunning >= REPLICAS, `never fewer than replicas - maxUnavailable Running (saw ${minRunning})`);
  assert.equal(transitions.slice(transitions.indexOf('3 old + 0 new running')), [
    '3 old + 0 new running',
    '3 old + 1 new running',
    '2 old + 1 new running',
    '2 old + 2 new running',
    '1 old + 2 new running',
    '1 old + 3 new running',
    '0 old + 3 new running',
  ]);

  // The new Machines are made from the new template; the old ones took their provider objects along.
  for (const m of (await machinesApi.list()).items) {
    const m3m = await client.api(Metal3MachineResource, ns).get(m.metadata.name ?? '');
    assert.is(m3m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'], 'workers-v2');
    assert.is(m3m.spec?.image?.url, 'http://172.22.0.1/images/node-v2.img');
  }
  for (const name of oldNames) {
    await eventually(`Metal3Machine ${name} deleted`, async () => {
      try {
        await client.api(Metal3MachineResource, ns).get(name);
        return undefined;
      } catch (error) {
        return isNotFound(error) ? true : undefined;
      }
    });
    await eventually(`KubeadmConfig ${name} deleted`, async () => {
      try {
        await client.api(KubeadmConfigResource, ns).get(name);
        return undefined;
      } catch (error) {
        return isNotFound(error) ? true : undefined;
      }
    });
  }
});

test.run();
