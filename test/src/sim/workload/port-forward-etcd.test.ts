// Etcd membership behind the kubelet's port-forward, without Cluster API (issue 17): three simulated
// control-plane Nodes of one workload cluster each run an etcd member named after the Node, serving
// TLS to client certificates of the cluster's `<cluster>-etcd` CA (here made by the test, as KCP
// would); a client going through the workload apiserver's `pods/portforward` to `etcd-<node>` port
// 2379, the path KubeadmControlPlane's etcd client takes, lists the three members. A member removed
// (as KCP does on scale-down) stops, a deprovisioned Node's member and endpoint go with it, and the
// host provisioned again joins afresh.
// Real parts: kube-apiserver (its egress proxy dial, kubelet upgrade proxying), etcd (3 members).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client, Transport } from '@metal3-ts/generated';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { Duplex } from 'node:stream';
import { type Certificate, issueCertificate } from '../../envtest/pki.ts';
import { freshNamespace, withSharedEnv } from '../../envtest/suite.ts';
import { eventuallyWith } from '../../testing/eventually.ts';
import { portForward } from '../../testing/port-forward.ts';
import { type RunningSimulators, simulatorDeps, startSimulators } from '../simulator.ts';
import { workloadClusterName, workloadSimulator } from './index.ts';

const test = suite('port-forward to etcd members of simulated control-plane Nodes');
const env = withSharedEnv(test);
const eventually = eventuallyWith({ timeoutMs: 60_000, pollMs: 300 });
const initData = readFileSync(new URL('./testdata/capbk-init.yaml', import.meta.url), 'utf8');
const NODES = ['cp-0', 'cp-1', 'cp-2'];

let client: Client;
let running: RunningSimulators;
let ns = '';
let apiserverName = '';
let etcdCa: Certificate;
let kcpClient: Certificate;

const workloadAdmin = () => env().workloadClusters.get(apiserverName)!.apiserver.admin;

/** An HTTP/1.1 exchange with etcd's JSON gateway over TLS on a forwarded stream. */
function etcdRequest(stream: Duplex, cert: Certificate, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ socket: stream, cert: cert.certPem, key: cert.keyPem, rejectUnauthorized: false, servername: 'localhost' });
    const payload = JSON.stringify(body);
    let text = '';
    socket.on('secureConnect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n${payload}`,
      );
    });
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('end', () => {
      const [head = '', rest = ''] = text.split('\r\n\r\n', 2);
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
      // The gateway may answer chunked: the JSON object is between the first { and the last }.
      const json = rest.includes('{') ? JSON.parse(rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1)) as Record<string, unknown> : {};
      resolve({ status, json });
    });
    socket.on('error', reject);
  });
}

type Member = { ID?: string; name?: string };
async function members(node: string): Promise<Member[] | undefined> {
  try {
    const stream = await portForward(workloadAdmin(), 'kube-system', `etcd-${node}`, 2379);
    const { status, json } = await etcdRequest(stream, kcpClient, '/v3/cluster/member/list', {});
    return status === 200 ? (json['members'] as Member[]) : undefined;
  } catch {
    return undefined; // not up yet
  }
}

const names = (list: Member[]) => list.map((m) => m.name ?? '').sort();

async function provisioned(name: string): Promise<void> {
  await client.api(Metal3MachineResource, ns).create(
    newMetal3Machine({
      metadata: { name: `${name}-m3m`, labels: { 'cluster.x-k8s.io/cluster-name': 'test1' }, annotations: { 'metal3.io/BareMetalHost': `${ns}/${name}` } },
      spec: { image: { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum' } },
    }),
  );
  await client.api(SecretResource, ns).create(newSecret({ metadata: { name: `${name}-user-data` }, stringData: { value: initData } }));
  await client.api(SecretResource, ns).create(newSecret({ metadata: { name: `${name}-metadata` }, stringData: { metaData: `local-hostname: ${name}\n` } }));
  await client.api(BareMetalHostResource, ns).create(
    newBareMetalHost({
      metadata: { name },
      spec: {
        online: true,
        consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: `${name}-m3m`, namespace: ns },
        userData: { name: `${name}-user-data`, namespace: ns },
        metaData: { name: `${name}-metadata`, namespace: ns },
      },
    }),
  );
  await setState(name, 'provisioned');
}

function setState(name: string, state: string) {
  return client.api(BareMetalHostResource, ns).mergePatchStatus(name, {
    status: {
      errorCount: 0,
      errorMessage: '',
      operationalStatus: 'OK',
      poweredOn: state === 'provisioned',
      provisioning: { ID: '', state },
      hardware: { hostname: name, nics: [{ name: 'eth0', mac: '00:00:00:00:00:01', ip: '192.168.111.21' }] },
    },
  });
}

test.before(async () => {
  client = new Client(Transport.fromConnection(env().admin));
  ns = await freshNamespace(env().admin.client, 'sim-etcd');
  etcdCa = issueCertificate({ commonName: 'etcd-ca', usage: 'ca', days: 30 });
  kcpClient = issueCertificate({ commonName: 'kube-etcd-healthcheck-client', usage: 'client', days: 30 }, etcdCa);
  const secret = { 'tls.crt': etcdCa.certPem, 'tls.key': etcdCa.keyPem };
  await client.api(SecretResource, ns).create(newSecret({ metadata: { name: 'test1-etcd' }, type: 'cluster.x-k8s.io/secret', stringData: secret }));
  const deps = simulatorDeps(env().admin);
  running = await startSimulators(deps, workloadSimulator(deps, { env: env(), namespace: ns, retryAfterMs: 100 }));
});

test.after(async () => {
  await running.stop();
  if (apiserverName && env().workloadClusters.has(apiserverName)) await env().stopWorkloadCluster(apiserverName);
  client.transport.close();
});

test('three control-plane Nodes: MemberList through the port-forward of each etcd-<node> names the three Nodes', async () => {
  const started = Date.now();
  const cluster = await client.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'test1' }, spec: {} }));
  apiserverName = workloadClusterName({ namespace: ns, name: 'test1', uid: cluster.metadata.uid });
  await eventually('the workload apiserver', () => Promise.resolve(env().workloadClusters.has(apiserverName) || undefined));
  for (const node of NODES) await provisioned(node);
  for (const node of NODES) {
    const list = await eventually(`etcd-${node} lists three members`, async () => {
      const found = await members(node);
      return found && found.length === 3 && found.every((m) => m.name) ? found : undefined;
    });
    assert.equal(names(list), NODES, node);
  }
  console.log(`    three members reachable through port-forward in ${Date.now() - started} ms`);
});

test('etcd refuses a client certificate of another CA; the kube-apiserver-<node> forward reaches an apiserver serving as kube-apiserver', async () => {
  const stranger = issueCertificate({ commonName: 'stranger', usage: 'client', days: 1 });
  const stream = await portForward(workloadAdmin(), 'kube-system', 'etcd-cp-0', 2379);
  const outcome = await etcdRequest(stream, stranger, '/v3/cluster/member/list', {}).then((r) => `HTTP ${r.status}`, (e: Error) => e.message);
  assert.not.match(outcome, /HTTP 200/);

  const apiserver = await portForward(workloadAdmin(), 'kube-system', 'kube-apiserver-cp-0', 6443);
  const peer = await new Promise<string>((resolve, reject) => {
    const socket = tlsConnect({ socket: apiserver, rejectUnauthorized: false }, () => {
      resolve(new X509Certificate(socket.getPeerCertificate(true).raw).subject);
      socket.destroy();
    });
    socket.on('error', reject);
  });
  assert.match(peer, /CN=kube-apiserver/);

  const wrongPort = await portForward(workloadAdmin(), 'kube-system', 'etcd-cp-0', 2380);
  const message = await new Promise<string>((resolve) => {
    wrongPort.on('error', (e) => resolve(e.message));
    wrongPort.on('end', () => resolve('ended without an error'));
    wrongPort.resume();
  });
  assert.match(message, /listens on 2379, not 2380/, message);
});

test('a member removed as KCP does on scale-down stops; its deprovisioned Node takes its endpoint along; the rest keep quorum', async () => {
  const list = (await members('cp-0'))!;
  const id = list.find((m) => m.name === 'cp-2')!.ID!;
  // etcd refuses a reconfiguration (503 "unhealthy cluster") until the leader has seen every member
  // connected for a few seconds; KCP retries on its next reconcile, so does this.
  await eventually('cp-2 removed from the cluster', async () => {
    const stream = await portForward(workloadAdmin(), 'kube-system', 'etcd-cp-0', 2379);
    const removed = await etcdRequest(stream, kcpClient, '/v3/cluster/member/remove', { ID: id });
    return removed.status === 200 || undefined;
  });
  await eventually('the removed member exited', () => Promise.resolve(!env().workloadClusters.get(apiserverName)!.etcdMembers.has('cp-2') || undefined));
  await setState('cp-2', 'deprovisioning');
  await eventually('etcd-cp-2 unreachable', async () => (await members('cp-2')) === undefined || undefined);
  const rest = await eventually('two members on cp-1', () => members('cp-1'));
  assert.equal(names(rest), ['cp-0', 'cp-1']);
});

test("the host provisioned again under the same Node name joins with a fresh member (a removed member's data would make etcd refuse to start)", async () => {
  await setState('cp-2', 'provisioned');
  const list = await eventually('etcd-cp-2 lists three members again', async () => {
    const found = await members('cp-2');
    return found && found.length === 3 && found.every((m) => m.name) ? found : undefined;
  });
  assert.equal(names(list), NODES);
});

test.run();
