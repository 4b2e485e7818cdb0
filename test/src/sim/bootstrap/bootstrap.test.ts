// The bootstrap simulator on the real apiserver: KubeadmConfig → data Secret and ready status, with
// the waits (owner Machine, Cluster infrastructure, pause, missing Secrets) CABPK has.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { Client, Transport } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type KubeadmConfig, KubeadmConfigResource, type KubeadmConfigSpec, newKubeadmConfig } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newSecret, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, type SimulatorDeps, simulatorDeps, startSimulators } from '../simulator.ts';
import {
  bootstrapSimulator,
  CLOUD_CONFIG_HEADER,
  CLUSTER_SECRET_TYPE,
  DATA_SECRET_AVAILABLE_CONDITION,
  DATA_SECRET_GENERATION_FAILED_REASON,
  readNodeRegistration,
  WAITING_FOR_CLUSTER_INFRASTRUCTURE_REASON,
} from './index.ts';
import { decodeSecretValue } from './secret-refs.ts';
import { kubeletJoinFromUserData } from '../workload/kubeadm-config.ts';
import { eventuallyWith, sleep } from '../../testing/eventually.ts';

const bootstrap = suite('bootstrap simulator on the real apiserver');
const env = withSharedEnv(bootstrap);

let client: Client;
let deps: SimulatorDeps;
let running: RunningSimulators;

const eventually = eventuallyWith({ timeoutMs: 15_000 });

const UUID_LABEL = 'metal3.io/uuid={{ ds.meta_data.uuid }}';

const configs = (ns: string) => client.api(KubeadmConfigResource, ns);
const secrets = (ns: string) => client.api(SecretResource, ns);

async function secretOrNothing(ns: string, name: string): Promise<Secret | undefined> {
  try {
    return await secrets(ns).get(name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

const dataOf = (secret: Secret, key: string): string => decodeSecretValue(secret.data?.[key] ?? '');

async function createCluster(ns: string, name: string, options: { ready?: boolean; paused?: boolean } = {}): Promise<void> {
  await client.api(ClusterResource, ns).create(
    newCluster({ metadata: { name }, spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, ...(options.paused ? { paused: true } : {}) } }),
  );
  if (options.ready) await setInfrastructureReady(ns, name, true);
}

const setInfrastructureReady = (ns: string, name: string, ready: boolean) =>
  client.api(ClusterResource, ns).mergePatchStatus(name, { status: { infrastructureReady: ready } });

function createMachine(ns: string, name: string, config: string, options: { controlPlane?: boolean; dataSecretName?: string } = {}): Promise<Machine> {
  return client.api(MachineResource, ns).create(
    newMachine({
      metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': 'c1', ...(options.controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}) } },
      spec: {
        clusterName: 'c1',
        version: 'v1.30.2',
        bootstrap: {
          configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: config },
          ...(options.dataSecretName ? { dataSecretName: options.dataSecretName } : {}),
        },
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name },
      },
    }),
  );
}

/** What the CAPI Machine controller does: make the Machine the config's controller owner. */
const adopt = (ns: string, config: string, machine: Machine) =>
  configs(ns).mergePatch(config, {
    metadata: {
      ownerReferences: [{
        apiVersion: machine.apiVersion,
        kind: 'Machine',
        name: machine.metadata.name ?? '',
        uid: machine.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
  });

const createConfig = (ns: string, name: string, spec: KubeadmConfigSpec) =>
  configs(ns).create(newKubeadmConfig({ metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } }, spec }));

const ready = (ns: string, name: string): Promise<KubeadmConfig> =>
  eventually(`KubeadmConfig ${name} ready`, async () => {
    const c = await configs(ns).get(name);
    return c.status?.ready ? c : undefined;
  });

const conditionOf = (config: KubeadmConfig, type: string) => config.status?.conditions?.find((c) => c.type === type);

const workerSpec: KubeadmConfigSpec = {
  joinConfiguration: { nodeRegistration: { name: '{{ ds.meta_data.name }}', kubeletExtraArgs: { 'node-labels': UUID_LABEL } } },
  preKubeadmCommands: ['systemctl enable --now kubelet'],
};

bootstrap.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  deps = simulatorDeps(env().admin);
  running = await startSimulators(deps, bootstrapSimulator(deps, { missingSecretRetryMs: 200 }));
});

bootstrap.after(async () => {
  await running?.stop();
  client?.transport.close();
});

bootstrap('waits for an owner Machine, then for the Cluster infrastructure; then writes the data Secret and reports ready', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1');
  const created = await createConfig(ns, 'w-0', workerSpec);
  await sleep(300);
  assert.is((await configs(ns).get('w-0')).status, undefined, 'nothing without an owner Machine');

  const machine = await createMachine(ns, 'w-0', 'w-0');
  await adopt(ns, 'w-0', machine);
  const waiting = await eventually('waiting condition', async () => {
    const c = await configs(ns).get('w-0');
    return conditionOf(c, DATA_SECRET_AVAILABLE_CONDITION) ? c : undefined;
  });
  assert.equal(
    [
      conditionOf(waiting, DATA_SECRET_AVAILABLE_CONDITION)?.status,
      conditionOf(waiting, DATA_SECRET_AVAILABLE_CONDITION)?.reason,
      conditionOf(waiting, DATA_SECRET_AVAILABLE_CONDITION)?.severity,
    ],
    ['False', WAITING_FOR_CLUSTER_INFRASTRUCTURE_REASON, 'Info'],
  );
  assert.is(conditionOf(waiting, 'Ready')?.status, 'False');
  assert.not.ok(waiting.status?.ready);
  assert.is(await secretOrNothing(ns, 'w-0'), undefined, 'no Secret before the infrastructure is ready');

  await setInfrastructureReady(ns, 'c1', true);
  const done = await ready(ns, 'w-0');
  assert.is(done.status?.dataSecretName, 'w-0');
  assert.equal(done.status?.conditions?.map((c) => [c.type, c.status]), [['Ready', 'True'], [DATA_SECRET_AVAILABLE_CONDITION, 'True']]);

  const secret = await secrets(ns).get('w-0');
  assert.is(secret.type, CLUSTER_SECRET_TYPE);
  assert.equal(secret.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1' });
  assert.equal(
    secret.metadata.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.uid, r.controller]),
    [['bootstrap.cluster.x-k8s.io/v1beta1', 'KubeadmConfig', 'w-0', created.metadata.uid, true]],
  );
  assert.equal(Object.keys(secret.data ?? {}).sort(), ['format', 'value']);
  assert.is(dataOf(secret, 'format'), 'cloud-config');
  const value = dataOf(secret, 'value');
  assert.ok(value.startsWith(CLOUD_CONFIG_HEADER));
  const cloudConfig = parse(value) as { runcmd: string[] };
  assert.is(cloudConfig.runcmd[0], 'systemctl enable --now kubelet');
  assert.match(cloudConfig.runcmd[1] ?? '', /^kubeadm join --config \/run\/kubeadm\/kubeadm-join-config\.yaml/);
  const registration = readNodeRegistration(value);
  assert.equal(registration?.nodeLabels, { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' });
  assert.is(registration?.kind, 'JoinConfiguration');
  // The workload-cluster simulator's kubelet reads the same labels and name from it.
  const join = kubeletJoinFromUserData(value);
  assert.equal([join.nodeLabels, join.nodeName, join.controlPlane], [[UUID_LABEL], '{{ ds.meta_data.name }}', false]);
});

bootstrap('a control plane Machine without JoinConfiguration gets kubeadm init data; ignition format is stored as such', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1', { ready: true });
  await createConfig(ns, 'cp-0', { initConfiguration: { nodeRegistration: { kubeletExtraArgs: { 'node-labels': UUID_LABEL } } }, clusterConfiguration: {} });
  await adopt(ns, 'cp-0', await createMachine(ns, 'cp-0', 'cp-0', { controlPlane: true }));
  await createConfig(ns, 'ign', { ...workerSpec, format: 'ignition' });
  await adopt(ns, 'ign', await createMachine(ns, 'ign', 'ign'));
  await Promise.all([ready(ns, 'cp-0'), ready(ns, 'ign')]);

  const init = await secrets(ns).get('cp-0');
  const registration = readNodeRegistration(dataOf(init, 'value'));
  assert.is(registration?.kind, 'InitConfiguration');
  assert.equal(registration?.nodeLabels, { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' });
  assert.match(dataOf(init, 'value'), /controlPlaneEndpoint: 192\.168\.111\.249:6443/);
  assert.equal(kubeletJoinFromUserData(dataOf(init, 'value')).controlPlane, true);

  const ignition = await secrets(ns).get('ign');
  assert.is(dataOf(ignition, 'format'), 'ignition');
  const parsed = JSON.parse(dataOf(ignition, 'value')) as { ignition: { version: string } };
  assert.is(parsed.ignition.version, '2.3.0');
  assert.equal(readNodeRegistration(dataOf(ignition, 'value'))?.nodeLabels, { 'metal3.io/uuid': '{{ ds.meta_data.uuid }}' });
});

bootstrap('files and passwords from Secrets: a missing Secret fails the render (reported, retried), its arrival completes it', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1', { ready: true });
  await createConfig(ns, 'refs', {
    ...workerSpec,
    files: [{ path: '/etc/registry.conf', owner: 'root:root', permissions: '0600', contentFrom: { secret: { name: 'extra', key: 'registry' } } }],
    users: [{ name: 'ops', passwdFrom: { secret: { name: 'extra', key: 'password' } } }],
  });
  await adopt(ns, 'refs', await createMachine(ns, 'refs', 'refs'));
  const failed = await eventually('generation failure reported', async () => {
    const c = await configs(ns).get('refs');
    return conditionOf(c, DATA_SECRET_AVAILABLE_CONDITION)?.reason === DATA_SECRET_GENERATION_FAILED_REASON ? c : undefined;
  });
  const condition = conditionOf(failed, DATA_SECRET_AVAILABLE_CONDITION);
  assert.equal([condition?.status, condition?.severity], ['False', 'Warning']);
  assert.match(condition?.message ?? '', /Secret extra not found/);
  assert.is(await secretOrNothing(ns, 'refs'), undefined);

  await secrets(ns).create(newSecret({ metadata: { name: 'extra' }, stringData: { registry: '[registry]\nmirror = "x"\n', password: '$6$hash' } }));
  await ready(ns, 'refs');
  const cloudConfig = parse(dataOf(await secrets(ns).get('refs'), 'value')) as {
    write_files: { path: string; content: string }[];
    users: { name: string; passwd?: string }[];
  };
  assert.equal(cloudConfig.write_files[0], { path: '/etc/registry.conf', owner: 'root:root', permissions: '0600', content: '[registry]\nmirror = "x"\n' });
  assert.equal(cloudConfig.users, [{ name: 'ops', passwd: '$6$hash' }]);
});

bootstrap('a Machine that already names its data Secret makes the config ready with that name, rendering nothing', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1', { ready: true });
  await createConfig(ns, 'given', workerSpec);
  await adopt(ns, 'given', await createMachine(ns, 'given', 'given', { dataSecretName: 'hand-made' }));
  const done = await ready(ns, 'given');
  assert.is(done.status?.dataSecretName, 'hand-made');
  assert.is(await secretOrNothing(ns, 'given'), undefined);
});

bootstrap('a paused Cluster holds rendering back until it is unpaused', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1', { ready: true, paused: true });
  await createConfig(ns, 'p', workerSpec);
  await adopt(ns, 'p', await createMachine(ns, 'p', 'p'));
  await sleep(400);
  assert.is((await configs(ns).get('p')).status, undefined);
  await client.api(ClusterResource, ns).mergePatch('c1', { spec: { paused: false } });
  assert.is((await ready(ns, 'p')).status?.dataSecretName, 'p');
});

bootstrap('ready data is never re-rendered; a stale Secret left by an earlier attempt is brought up to date', async () => {
  const ns = await freshNamespace(env().admin.client, 'boot');
  await createCluster(ns, 'c1', { ready: true });
  await secrets(ns).create(newSecret({ metadata: { name: 'again' }, type: CLUSTER_SECRET_TYPE, stringData: { value: 'stale', format: 'cloud-config' } }));
  const created = await createConfig(ns, 'again', workerSpec);
  await adopt(ns, 'again', await createMachine(ns, 'again', 'again'));
  await ready(ns, 'again');
  const first = await secrets(ns).get('again');
  assert.ok(dataOf(first, 'value').startsWith(CLOUD_CONFIG_HEADER), 'stale data replaced');
  assert.is(first.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
  assert.equal(first.metadata.labels, { 'cluster.x-k8s.io/cluster-name': 'c1' });

  await configs(ns).mergePatch('again', { spec: { preKubeadmCommands: ['echo changed'] } });
  await sleep(400);
  const after = await secrets(ns).get('again');
  assert.is(after.metadata.resourceVersion, first.metadata.resourceVersion);
});

bootstrap.run();
