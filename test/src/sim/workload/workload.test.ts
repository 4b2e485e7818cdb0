// The workload-cluster simulator on real apiservers: a Cluster gets its own apiserver and a kubeconfig
// Secret the harness's ClusterCache can use; provisioned hosts' kubelets register Nodes there (name,
// labels and providerID per mode), deprovisioning removes them; deleting the Cluster waits for its
// Machines, then removes the Secret and stops the apiserver.
//
// One workload apiserver for the whole file (each costs ~250 MB and ~3 s): the tests run in order on
// one Cluster, the last one deletes it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { Client, Transport } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Cluster, ClusterResource, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { ConfigMapResource, NamespaceResource, newSecret, type Node, NodeResource, SecretResource } from '@metal3-ts/generated/core/v1';
import { PodResource } from './control-plane.ts';
import { Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import {
  CLUSTER_FINALIZER,
  KUBELET_NOT_READY_ANNOTATION,
  KUBELET_STOPPED_ANNOTATION,
  NOT_READY_TAINT,
  PROVIDER_ID_MODE_ANNOTATION,
  type ProviderIdMode,
  SKIP_ANNOTATION,
  UNREACHABLE_TAINT,
  workloadClusterName,
  workloadSimulator,
} from './index.ts';
import { eventuallyWith } from '../../testing/eventually.ts';

const test = suite('workload-cluster simulator on real apiservers');
const env = withSharedEnv(test);

let client: Client;
let running: RunningSimulators;
let cache: ClusterCache;
let ns = '';
let cluster: Cluster;
let apiserverName = '';

const JOIN_DELAY_MS = 1_000;
const joinData = readFileSync(new URL('./testdata/capbk-join.yaml', import.meta.url), 'utf8');

const eventually = eventuallyWith({ timeoutMs: 20_000 });

const orUndefined = async <T>(p: Promise<T>): Promise<T | undefined> => {
  try {
    return await p;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
};

const workload = () => cache.get({ namespace: ns, name: 'test1' });
const node = async (name: string): Promise<Node | undefined> => orUndefined((await workload()).api(NodeResource).get(name));

/** A host consumed by Metal3Machine `m3m` of cluster test1, with userData/metaData Secrets, provisioned. */
async function provisionedHost(name: string, options: { metaData?: string; userData?: string }): Promise<BareMetalHost> {
  await client.api(Metal3MachineResource, ns).create(
    newMetal3Machine({
      metadata: { name: `${name}-m3m`, labels: { 'cluster.x-k8s.io/cluster-name': 'test1' }, annotations: { 'metal3.io/BareMetalHost': `${ns}/${name}` } },
      spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' } },
    }),
  );
  const secrets = client.api(SecretResource, ns);
  if (options.userData !== undefined) await secrets.create(newSecret({ metadata: { name: `${name}-user-data` }, stringData: { value: options.userData } }));
  if (options.metaData !== undefined) await secrets.create(newSecret({ metadata: { name: `${name}-metadata` }, stringData: { metaData: options.metaData } }));
  const hosts = client.api(BareMetalHostResource, ns);
  await hosts.create(
    newBareMetalHost({
      metadata: { name },
      spec: {
        online: true,
        consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: `${name}-m3m`, namespace: ns },
        ...(options.userData !== undefined ? { userData: { name: `${name}-user-data`, namespace: ns } } : {}),
        ...(options.metaData !== undefined ? { metaData: { name: `${name}-metadata`, namespace: ns } } : {}),
      },
    }),
  );
  return setState(name, 'provisioned');
}

/** Plays BMO: writes the host's status directly. */
function setState(name: string, state: string): Promise<BareMetalHost> {
  return client.api(BareMetalHostResource, ns).mergePatchStatus(name, {
    status: {
      errorCount: 0,
      errorMessage: '',
      operationalStatus: 'OK',
      poweredOn: state === 'provisioned',
      provisioning: { ID: '', state },
      hardware: {
        hostname: name,
        cpu: { arch: 'x86_64', count: 4 },
        ramMebibytes: 8192,
        nics: [{ name: 'eth0', mac: '00:00:00:00:00:01', ip: '192.168.111.21' }],
      },
    },
  });
}

async function setMode(mode: ProviderIdMode): Promise<void> {
  await client.api(ClusterResource, ns).mergePatch('test1', { metadata: { annotations: { [PROVIDER_ID_MODE_ANNOTATION]: mode } } });
}

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  ns = await freshNamespace(env().admin.client, 'sim-workload');
  const deps = simulatorDeps(env().admin);
  running = await startSimulators(deps, workloadSimulator(deps, { env: env(), namespace: ns, retryAfterMs: 100 }));
  cache = new ClusterCache(client, { closeGraceMs: 50, probeTimeoutMs: 3_000 });
});

test.after(async () => {
  cache.close();
  await running.stop();
  if (apiserverName && env().workloadClusters.has(apiserverName)) await env().stopWorkloadCluster(apiserverName);
  client.transport.close();
});

test('a Cluster gets a reachable workload apiserver and a kubeconfig Secret the ClusterCache can use (the Secret written while the apiserver starts, its clients held until it serves)', async () => {
  const started = Date.now();
  cluster = await client.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'test1' }, spec: {} }));
  apiserverName = workloadClusterName({ namespace: ns, name: 'test1', uid: cluster.metadata.uid });
  const secret = await eventually('the kubeconfig Secret', () => orUndefined(client.api(SecretResource, ns).get('test1-kubeconfig')));
  assert.is(secret.type, 'cluster.x-k8s.io/secret');
  assert.is(secret.metadata.labels?.['cluster.x-k8s.io/cluster-name'], 'test1');
  assert.equal(
    secret.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
    [['Cluster', 'test1', cluster.metadata.uid, true]],
  );
  assert.match(Buffer.from(secret.data?.['value'] ?? '', 'base64').toString('utf8'), /server: https:\/\//);

  // The Secret may come before the apiserver serves (so Cluster API's first look finds it): a client
  // made from it is held at the front door, not refused.
  // (Retried: a probe held longer than its timeout on a loaded machine fails like any slow answer.)
  const listed = await eventually('the workload apiserver through the Secret', async () => {
    try {
      return (await (await workload()).api(NamespaceResource).list()).items;
    } catch {
      return undefined;
    }
  });
  const namespaces = listed.map((n) => n.metadata.name);
  assert.ok(env().workloadClusters.has(apiserverName), apiserverName);
  assert.ok(namespaces.includes('default'), namespaces.join(','));
  // Separate apiservers: the management namespace is not there.
  assert.not.ok(namespaces.includes(ns));
  const current = await client.api(ClusterResource, ns).get('test1');
  assert.ok(current.metadata.finalizers?.includes(CLUSTER_FINALIZER));
  console.log(`    workload apiserver and Secret ready in ${Date.now() - started} ms`);
});

test("the kubeconfig authenticates with a client certificate (system:masters, signed by the workload CA, valid past KCP's renewal window), and one KCP rewrites to the controlPlaneEndpoint is taken back, KCP staying controller", async () => {
  const secrets = client.api(SecretResource, ns);
  const config = (s: { data?: Record<string, string> }) => parse(Buffer.from(s.data?.['value'] ?? '', 'base64').toString('utf8'));
  const ours = await secrets.get('test1-kubeconfig');
  const user = config(ours).users[0].user;
  assert.not.ok(user.token, 'no token: KCP parses the client certificate');
  const cert = new X509Certificate(Buffer.from(user['client-certificate-data'], 'base64'));
  assert.match(cert.subject, /O=system:masters/);
  assert.ok(Date.parse(cert.validTo) - Date.now() > 183 * 86400_000, `valid until ${cert.validTo}`);

  // What KCP does: adopt the Secret (its controller now) and write a kubeconfig for the endpoint.
  const kcpRef = {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    name: 'test1',
    uid: '00000000-0000-0000-0000-00000000c0de',
    controller: true,
    blockOwnerDeletion: true,
  };
  const kcpConfig = [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: test1, cluster: {server: "https://192.168.111.249:6443"}}]',
    'users: [{name: test1-admin, user: {}}]',
    '',
  ].join('\n');
  await secrets.mergePatch('test1-kubeconfig', { metadata: { ownerReferences: [kcpRef] }, data: { value: Buffer.from(kcpConfig).toString('base64') } });
  const taken = await eventually('the Secret pointed back at the workload apiserver', async () => {
    const s = await secrets.get('test1-kubeconfig');
    return /^https:\/\/127\.0\.0\.1:/.test(config(s).clusters[0].cluster.server) ? s : undefined;
  });
  assert.equal(taken.metadata.ownerReferences?.map((r) => r.kind), ['KubeadmControlPlane'], 'only the value is rewritten');
  cache.drop({ namespace: ns, name: 'test1' });
  const names = (await (await workload()).api(NamespaceResource).list()).items.map((n) => n.metadata.name);
  assert.ok(names.includes('kube-system'), names.join(','));
});

test('a provisioned host joins (default mode): Node named by local-hostname, uuid label, Ready, no providerID', async () => {
  const host = await provisionedHost('host-0', { userData: joinData.replace("name: '{{ ds.meta_data.name }}'", ''), metaData: 'local-hostname: worker-0\n' });
  const n = await eventually('Node worker-0', () => node('worker-0'));
  assert.is(n.metadata.labels?.['kubernetes.io/hostname'], 'worker-0');
  assert.is(n.metadata.labels?.['metal3.io/uuid'], host.metadata.uid);
  assert.is(n.spec?.providerID, undefined);
  assert.is(n.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(n.status?.addresses, [
    { type: 'InternalIP', address: '192.168.111.21' },
    { type: 'Hostname', address: 'worker-0' },
  ]);
  // CAPM3's node lookup (P-8) finds it by label.
  const byLabel = await (await workload()).api(NodeResource).list({ labelSelector: `metal3.io/uuid=${host.metadata.uid}` });
  assert.equal(byLabel.items.map((i) => i.metadata.name), ['worker-0']);
});

test('cloud-provider mode sets the new-format providerID; legacy mode metal3://<uid>; no uuid label unless asked', async () => {
  await setMode('cloud-provider');
  await provisionedHost('host-1', { userData: joinData });
  const cloud = await eventually('Node host-1', () => node('host-1'));
  assert.is(cloud.spec?.providerID, `metal3://${ns}/host-1/host-1-m3m`);

  await setMode('legacy');
  const legacyHost = await provisionedHost('host-2', { userData: '#cloud-config\nruncmd:\n- kubeadm join\n' });
  const legacy = await eventually('Node host-2', () => node('host-2'));
  assert.is(legacy.spec?.providerID, `metal3://${legacyHost.metadata.uid}`);
  assert.is(legacy.metadata.labels?.['metal3.io/uuid'], undefined);
  assert.is(legacy.metadata.labels?.['kubernetes.io/hostname'], 'host-2');
  await setMode('default');
});

test("a control-plane host (kubeadm init data) gets its static pods' mirror Pods, Running and Ready, and kubeadm-config; deprovisioned, its mirror Pods go", async () => {
  const initData = readFileSync(new URL('./testdata/capbk-init.yaml', import.meta.url), 'utf8');
  await provisionedHost('cp-0', { userData: initData, metaData: 'local-hostname: cp-0\n' });
  const n = await eventually('Node cp-0', () => node('cp-0'));
  assert.is(n.metadata.labels?.['node-role.kubernetes.io/control-plane'], '');
  const wl = await workload();
  const pods = wl.api(PodResource, 'kube-system');
  for (const component of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd']) {
    const pod = await eventually(`${component}-cp-0 Ready`, async () => {
      const p = await orUndefined(pods.get(`${component}-cp-0`));
      return p?.status?.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined;
    });
    assert.is(pod.spec?.['nodeName'], 'cp-0');
  }
  // kubeadm-config is uploaded after the mirror Pods (static-pods.ts): wait for it, not only for them.
  const config = await eventually('kubeadm-config', () => orUndefined(wl.api(ConfigMapResource, 'kube-system').get('kubeadm-config')));
  assert.match(config.data?.['ClusterConfiguration'] ?? '', /controlPlaneEndpoint: 192\.168\.111\.249:6443/);

  await setState('cp-0', 'deprovisioning');
  await eventually('mirror Pods of cp-0 gone', async () => ((await orUndefined(pods.get('etcd-cp-0'))) ? undefined : true));
  assert.is(await node('cp-0'), undefined);
});

test('deprovisioning removes the Node; a Node deleted under a running kubelet is not registered again', async () => {
  await setState('host-1', 'deprovisioning');
  await eventually('Node host-1 gone', async () => ((await node('host-1')) ? undefined : true));

  await (await workload()).api(NodeResource).delete('host-2');
  // A host event makes the kubelet controller look again; the Node stays gone.
  await client.api(BareMetalHostResource, ns).mergePatch('host-2', { metadata: { labels: { poke: '1' } } });
  await new Promise((r) => setTimeout(r, 500));
  assert.is(await node('host-2'), undefined);
  // Provisioned again (a new boot): the kubelet registers once more.
  await setState('host-2', 'deprovisioning');
  await setState('host-2', 'provisioned');
  await eventually('Node host-2 back', () => node('host-2'));
});

test("a restarted simulator brings the apiserver back with its Nodes and still removes a deprovisioned host's Node", async () => {
  await running.stop();
  assert.not.ok(env().workloadClusters.has(apiserverName), 'stopping the simulator stops the apiservers it served');
  const before = (await client.api(SecretResource, ns).get('test1-kubeconfig')).data?.['value'];
  await setState('host-0', 'deprovisioning');

  const deps = simulatorDeps(env().admin);
  // The second instance also shows the realistic timing option (next test).
  running = await startSimulators(deps, workloadSimulator(deps, { env: env(), namespace: ns, retryAfterMs: 100, joinDelayMs: JOIN_DELAY_MS }));
  await eventually('Node worker-0 gone', async () => ((await node('worker-0')) ? undefined : true));
  assert.ok(env().workloadClusters.has(apiserverName));
  assert.ok(await node('host-2'), 'Nodes survive the apiserver restart');
  const after = (await client.api(SecretResource, ns).get('test1-kubeconfig')).data?.['value'];
  assert.is.not(after, before, 'the Secret follows the restarted apiserver');
});

test('joinDelayMs: the kubelet registers its Node only that long after the host is provisioned', async () => {
  const started = Date.now();
  await provisionedHost('host-3', { userData: joinData });
  await new Promise((r) => setTimeout(r, JOIN_DELAY_MS / 2));
  assert.is(await node('host-3'), undefined, 'not yet');
  await eventually('Node host-3', () => node('host-3'));
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= JOIN_DELAY_MS, `registered after ${elapsed} ms`);
});

test('a host provisioned again for another Metal3Machine between two looks gets a new Node', async () => {
  const before = await eventually('Node host-3', () => node('host-3'));
  await client.api(Metal3MachineResource, ns).create(
    newMetal3Machine({
      metadata: { name: 'host-3-m3m-b', labels: { 'cluster.x-k8s.io/cluster-name': 'test1' } },
      spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' } },
    }),
  );
  await client.api(BareMetalHostResource, ns).mergePatch('host-3', { spec: { consumerRef: { name: 'host-3-m3m-b' } } });
  const after = await eventually('a new Node host-3', async () => {
    const n = await node('host-3');
    return n && n.metadata.uid !== before.metadata.uid ? n : undefined;
  });
  assert.is(after.metadata.labels?.['kubernetes.io/hostname'], 'host-3');
});

test("a stopped kubelet (annotation naming the host's consumer): Node Ready Unknown, NodeStatusUnknown, unreachable taints; a NotReady one: Ready False, KubeletNotReady, not-ready taints; annotations removed: Ready again", async () => {
  const hosts = client.api(BareMetalHostResource, ns);
  const readyOf = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready');
  const tainted = (n: Node | undefined, key: string) => (n?.spec?.taints ?? []).filter((t) => t.key === key).map((t) => t.effect);
  const readyIs = (status: string) => async () => {
    const n = await node('host-3');
    return readyOf(n)?.status === status ? n : undefined;
  };
  await hosts.mergePatch('host-3', { metadata: { annotations: { [KUBELET_STOPPED_ANNOTATION]: 'host-3-m3m-b' } } });
  const down = await eventually('Node host-3 Ready Unknown', readyIs('Unknown'));
  assert.equal([readyOf(down)?.reason, readyOf(down)?.message], ['NodeStatusUnknown', 'Kubelet stopped posting node status.']);
  assert.equal(tainted(down, UNREACHABLE_TAINT), ['NoSchedule', 'NoExecute']);

  await hosts.mergePatch('host-3', { metadata: { annotations: { [KUBELET_STOPPED_ANNOTATION]: null, [KUBELET_NOT_READY_ANNOTATION]: 'host-3-m3m-b' } } });
  const notReady = await eventually('Node host-3 Ready False', readyIs('False'));
  assert.is(readyOf(notReady)?.reason, 'KubeletNotReady');
  assert.equal([tainted(notReady, NOT_READY_TAINT), tainted(notReady, UNREACHABLE_TAINT)], [['NoSchedule', 'NoExecute'], []]);

  await hosts.mergePatch('host-3', { metadata: { annotations: { [KUBELET_NOT_READY_ANNOTATION]: null } } });
  const up = await eventually('Node host-3 Ready again', readyIs('True'));
  assert.is(readyOf(up)?.reason, 'KubeletReady');
  assert.equal(tainted(up, NOT_READY_TAINT), []);
  assert.is(up.metadata.uid, down.metadata.uid, 'the same Node: a restarted kubelet does not register again');
});

test('a Cluster marked skip gets no apiserver, Secret or finalizer', async () => {
  await client.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'byo', annotations: { [SKIP_ANNOTATION]: 'true' } }, spec: {} }));
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await orUndefined(client.api(SecretResource, ns).get('byo-kubeconfig')), undefined);
  assert.is((await client.api(ClusterResource, ns).get('byo')).metadata.finalizers, undefined);
  await client.api(ClusterResource, ns).delete('byo');
});

test('deleting the Cluster waits for its Machines, then removes the Secret and stops the apiserver', async () => {
  await client.api(MachineResource, ns).create(
    newMachine({
      metadata: { name: 'm-0', labels: { 'cluster.x-k8s.io/cluster-name': 'test1' } },
      spec: {
        clusterName: 'test1',
        bootstrap: { dataSecretName: 'x' },
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'host-0-m3m' },
      },
    }),
  );
  await client.api(ClusterResource, ns).delete('test1');
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(env().workloadClusters.has(apiserverName), 'apiserver kept while a Machine remains');
  assert.ok(await orUndefined(client.api(SecretResource, ns).get('test1-kubeconfig')), 'Secret kept while a Machine remains');

  await client.api(MachineResource, ns).delete('m-0');
  await eventually('the Cluster gone', async () => ((await orUndefined(client.api(ClusterResource, ns).get('test1'))) ? undefined : true));
  assert.is(await orUndefined(client.api(SecretResource, ns).get('test1-kubeconfig')), undefined);
  assert.not.ok(env().workloadClusters.has(apiserverName), 'apiserver stopped');
  cache.drop({ namespace: ns, name: 'test1' });
});

test.run();
