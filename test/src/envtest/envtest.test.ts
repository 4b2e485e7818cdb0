// The launcher against a real kube-apiserver + etcd: CRUD and watch on an upstream CRD (BareMetalHost)
// and one of ours (Metal3Machine), schema validation, least-privilege RBAC with minted identities,
// ServiceAccount tokens, and workload apiservers isolated from the management one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from './errors.ts';
import type { KubeObject, WatchEvent } from './http.ts';
import { waitFor, withTimeout } from './processes.ts';
import { listeningAddresses } from './sockets.ts';
import { freshNamespace, withSharedEnv } from './suite.ts';

const test = suite('envtest: real kube-apiserver');
const env = withSharedEnv(test);

async function rejects(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  assert.unreachable('expected the request to be rejected');
  throw new Error('unreachable');
}

const BMH = '/apis/metal3.io/v1alpha1';
const INFRA = '/apis/infrastructure.cluster.x-k8s.io/v1beta1';

function bmh(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name },
    spec: { online: false, bootMACAddress: '00:11:22:33:44:55', ...extra },
  };
}

function m3m(name: string): KubeObject {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name },
    spec: {
      image: {
        url: 'http://172.22.0.1/images/node.qcow2',
        checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum',
        checksumType: 'sha256',
        format: 'qcow2',
      },
    },
  };
}

test('is ready, reports the pinned version and listens on loopback only', async () => {
  assert.is(await env().admin.client.get<string>('/readyz', { raw: true }), 'ok');
  const version = await env().admin.client.get<{ gitVersion: string }>('/version');
  assert.match(version.gitVersion, /^v1\.(3[4-9]|[4-9]\d)\./);
  const listening = [env().etcd.process.pid, env().management.process.pid].flatMap((pid) => listeningAddresses(pid));
  assert.ok(listening.length >= 3, `expected etcd client+peer and apiserver listeners, got ${listening.join(', ')}`);
  for (const address of listening) assert.ok(address.startsWith('127.0.0.1:'), `listening beyond loopback: ${address}`);
});

test('installs every CRD and serves it in discovery', async () => {
  const names = new Set(env().crds.map((c) => c.crd.metadata.name));
  assert.ok(names.has('baremetalhosts.metal3.io'));
  assert.ok(names.has('clusters.cluster.x-k8s.io'));
  assert.ok(names.has('metal3machines.infrastructure.cluster.x-k8s.io'));
  assert.ok(!env().crds.some((c) => c.origin.includes('cluster-api-provider-metal3-')), 'upstream CAPM3 CRDs must not be installed');
  const clusters = env().crds.filter((c) => c.crd.metadata.name === 'clusters.cluster.x-k8s.io');
  assert.equal(clusters.map((c) => c.origin.includes('cluster-api-v1.10.10')), [true], 'one Cluster CRD, v1.10.10 (v1.13.5 is pinned envtest: false)');
  const discovery = await env().admin.client.get<{ resources: { name: string }[] }>(`${BMH}`);
  assert.ok(discovery.resources.some((r) => r.name === 'baremetalhosts'));
});

test('BareMetalHost: create, get, list, patch, delete', async () => {
  const ns = await freshNamespace(env().admin.client, 'bmh-crud');
  const c = env().admin.client;
  const base = `${BMH}/namespaces/${ns}/baremetalhosts`;
  const created = await c.create(base, bmh('host-0'));
  assert.ok(created.metadata?.uid);
  const got = await c.get<KubeObject & { spec: { online: boolean } }>(`${base}/host-0`);
  assert.is(got.spec.online, false);
  await c.create(base, bmh('host-1'));
  const list = await c.get<{ items: KubeObject[] }>(base);
  assert.equal(list.items.map((i) => i.metadata?.name).sort(), ['host-0', 'host-1']);
  const patched = await c.mergePatch<KubeObject & { spec: { online: boolean } }>(`${base}/host-0`, {
    metadata: { labels: { rack: 'r1' } },
    spec: { online: true },
  });
  assert.is(patched.spec.online, true);
  assert.is(patched.metadata?.labels?.['rack'], 'r1');
  const selected = await c.get<{ items: KubeObject[] }>(base, { query: { labelSelector: 'rack=r1' } });
  assert.equal(selected.items.map((i) => i.metadata?.name), ['host-0']);
  await c.delete(`${base}/host-0`);
  assert.is((await rejects(c.get(`${base}/host-0`))).code, 404);
});

for (const kind of ['BareMetalHost', 'Metal3Machine'] as const) {
  test(`a watch on ${kind} sees create, update and delete in order`, async () => {
    const ns = await freshNamespace(env().admin.client, `watch-${kind}`);
    const c = env().admin.client;
    const base = kind === 'BareMetalHost' ? `${BMH}/namespaces/${ns}/baremetalhosts` : `${INFRA}/namespaces/${ns}/metal3machines`;
    const object = kind === 'BareMetalHost' ? bmh('watched') : m3m('watched');
    const list = await c.get<{ metadata: { resourceVersion: string } }>(base);
    const events: WatchEvent[] = [];
    const watching = (async () => {
      for await (const event of c.watch(base, { resourceVersion: list.metadata.resourceVersion })) {
        events.push(event);
        if (event.type === 'DELETED') break;
      }
    })();
    await c.create(base, object);
    await c.mergePatch(`${base}/watched`, { metadata: { labels: { step: 'updated' } } });
    await c.delete(`${base}/watched`);
    await withTimeout(watching, 10_000, 'watch events');
    assert.equal(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(
      events.map((e) => e.object.metadata?.labels?.['step']),
      [undefined, 'updated', 'updated'],
    );
    const versions = events.map((e) => BigInt(e.object.metadata?.resourceVersion ?? '0'));
    assert.ok(versions[0]! < versions[1]! && versions[1]! <= versions[2]!, `resourceVersions in order: ${versions.join(', ')}`);
  });
}

test('Metal3Machine: create, get, list, patch, delete', async () => {
  const ns = await freshNamespace(env().admin.client, 'm3m-crud');
  const c = env().admin.client;
  const base = `${INFRA}/namespaces/${ns}/metal3machines`;
  await c.create(base, m3m('m-0'));
  await c.create(base, m3m('m-1'));
  const got = await c.get<KubeObject & { spec: { image: { checksumType: string } } }>(`${base}/m-0`);
  assert.is(got.spec.image.checksumType, 'sha256');
  const list = await c.get<{ items: KubeObject[] }>(base);
  assert.equal(list.items.map((i) => i.metadata?.name).sort(), ['m-0', 'm-1']);
  const patched = await c.mergePatch<KubeObject & { spec: { providerID?: string } }>(`${base}/m-0`, {
    spec: { providerID: 'metal3://ns/host-0/m-0' },
  });
  assert.is(patched.spec.providerID, 'metal3://ns/host-0/m-0');
  // Status is a subresource: a patch of the main resource ignores it, the status endpoint takes it.
  const withStatus = await c.mergePatch<KubeObject & { status?: { ready?: boolean } }>(`${base}/m-0/status`, { status: { ready: true } });
  assert.is(withStatus.status?.ready, true);
  await c.delete(`${base}/m-0`);
  assert.is((await rejects(c.get(`${base}/m-0`))).code, 404);
});

test("schema validation rejects an invalid Metal3Machine with the CRD's message", async () => {
  const ns = await freshNamespace(env().admin.client, 'm3m-invalid');
  const c = env().admin.client;
  const base = `${INFRA}/namespaces/${ns}/metal3machines`;
  // The expected message is read from the installed CRD, so the test follows the CRD as it evolves.
  const crd = env().crds.find((s) => s.crd.metadata.name === 'metal3machines.infrastructure.cluster.x-k8s.io');
  assert.ok(crd, 'our Metal3Machine CRD is installed');
  type Rule = { rule: string; message?: string; fieldPath?: string; reason?: string };
  type Schema = { properties?: Record<string, Schema>; 'x-kubernetes-validations'?: Rule[]; enum?: string[] };
  const version = crd.crd.spec.versions.find((v) => v.name === 'v1beta1') as unknown as { schema: { openAPIV3Schema: Schema } };
  const spec = version.schema.openAPIV3Schema.properties?.['spec'];
  const rule = spec?.['x-kubernetes-validations']?.find((r) => r.fieldPath === '.image.url' && r.reason === 'FieldValueRequired');
  assert.ok(rule?.message, 'the CRD has a rule requiring image.url');

  const missingUrl = m3m('no-url');
  (missingUrl['spec'] as { image: { url: string } }).image.url = '';
  const error = await rejects(c.create(base, missingUrl));
  assert.is(error.code, 422);
  assert.is(error.reason, 'Invalid');
  assert.ok(error.message.includes(rule.message), `expected "${rule.message}" in: ${error.message}`);
  assert.ok(error.message.includes('spec.image.url'), error.message);

  const checksumTypes = spec?.properties?.['image']?.properties?.['checksumType']?.enum ?? [];
  const badEnum = m3m('bad-checksum-type');
  (badEnum['spec'] as { image: { checksumType: string } }).image.checksumType = 'crc32';
  const enumError = await rejects(c.create(base, badEnum));
  assert.is(enumError.code, 422);
  assert.ok(enumError.message.includes('spec.image.checksumType: Unsupported value: "crc32"'), enumError.message);
  for (const value of checksumTypes) assert.ok(enumError.message.includes(`"${value}"`), `supported value ${value} listed`);
  assert.is((await c.get<{ items: unknown[] }>(base)).items.length, 0, 'nothing was stored');
});

test('a user without a Role is forbidden, with one allowed (only for what the Role grants)', async () => {
  const ns = await freshNamespace(env().admin.client, 'rbac');
  const alice = env().user('alice', ['metal3-operators']);
  const bob = env().user('bob', []);
  const path = `${BMH}/namespaces/${ns}/baremetalhosts`;

  // The minted credentials carry the requested identity.
  const review = await alice.client.create<{ status: { userInfo: { username: string; groups: string[] } } }>(
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  );
  assert.is(review.status.userInfo.username, 'alice');
  assert.ok(review.status.userInfo.groups.includes('metal3-operators'));

  assert.is((await rejects(alice.client.get(path))).code, 403);

  await env().admin.client.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'bmh-reader' },
    rules: [{ apiGroups: ['metal3.io'], resources: ['baremetalhosts'], verbs: ['get', 'list', 'watch'] }],
  });
  await env().admin.client.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'operators-read-bmh' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bmh-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'metal3-operators' }],
  });
  // The RBAC authorizer reads bindings through an informer: allow it a moment to see the new one.
  await waitFor('the RoleBinding to take effect', () => alice.client.get(path).then(() => true), { timeoutMs: 10_000 });

  assert.is((await rejects(alice.client.create(path, bmh('nope')))).code, 403, 'the Role grants no create');
  assert.is((await rejects(alice.client.get(`${BMH}/namespaces/default/baremetalhosts`))).code, 403, 'the Role is namespaced');
  assert.is((await rejects(bob.client.get(path))).code, 403, 'bob is not in the group');
});

test('ServiceAccount tokens come from the TokenRequest API', async () => {
  const ns = await freshNamespace(env().admin.client, 'sa');
  await env().admin.client.create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'controller' } });
  const token = await env().serviceAccountToken(ns, 'controller');
  const sa = env().admin.client.as({ token });
  const review = await sa.create<{ status: { userInfo: { username: string } } }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  assert.is(review.status.userInfo.username, `system:serviceaccount:${ns}:controller`);
  sa.close();
});

test('the admin KubeConfig works with @kubernetes/client-node', async () => {
  const kc = await env().admin.kubeConfig();
  assert.is(kc.getCurrentCluster()?.server, env().admin.server);
  const { CoreV1Api } = await import('@kubernetes/client-node');
  const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
  assert.is(ns.metadata?.name, 'default');
});

test('a Node created in a workload apiserver is invisible in the management apiserver; workloads stop and restart', async () => {
  const wl = env().workloadClusters.get('wl1') ?? (await env().startWorkloadCluster('wl1'));
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'wl1-node-0', labels: { 'metal3-ts.dev/test': 'true' } } };
  await wl.apiserver.admin.client.create('/api/v1/nodes', node);
  const inWorkload = await wl.apiserver.admin.client.get<KubeObject & { spec?: { taints?: unknown[] } }>('/api/v1/nodes/wl1-node-0');
  assert.is(inWorkload.spec?.taints, undefined, 'TaintNodesByCondition is off: no not-ready taint');
  assert.is((await rejects(env().admin.client.get('/api/v1/nodes/wl1-node-0'))).code, 404);
  const mgmtNodes = await env().admin.client.get<{ items: KubeObject[] }>('/api/v1/nodes');
  assert.ok(!mgmtNodes.items.some((n) => n.metadata?.name === 'wl1-node-0'));

  // The kubeconfig Secret round-trips through the management cluster and still reaches the workload one.
  const ns = await freshNamespace(env().admin.client, 'wl');
  await env().admin.client.create(`/api/v1/namespaces/${ns}/secrets`, wl.kubeconfigSecret(ns, 'cluster-a'));
  const secret = await env().admin.client.get<{ data: { value: string } }>(`/api/v1/namespaces/${ns}/secrets/cluster-a-kubeconfig`);
  const { KubeConfig, CoreV1Api } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromString(Buffer.from(secret.data.value, 'base64').toString('utf8'));
  const read = await kc.makeApiClient(CoreV1Api).readNode({ name: 'wl1-node-0' });
  assert.is(read.metadata?.name, 'wl1-node-0');
  for (const address of listeningAddresses(wl.apiserver.process.pid)) assert.ok(address.startsWith('127.0.0.1:'), address);

  // Stopped, the workload cluster is unreachable; restarted under the same name, its objects are back.
  await env().stopWorkloadCluster('wl1');
  const unreachable = await wl.apiserver.admin.client.get('/api/v1/nodes/wl1-node-0').then(() => undefined, (e: unknown) => e);
  assert.instance(unreachable, Error);
  assert.ok(!(unreachable instanceof ApiError), `a connection error, not an HTTP answer: ${String(unreachable)}`);
  const again = await env().startWorkloadCluster('wl1');
  assert.is((await again.apiserver.admin.client.get<KubeObject>('/api/v1/nodes/wl1-node-0')).metadata?.name, 'wl1-node-0');
});

test('a workload kubeconfig exists before its apiserver: given to onKubeconfig while the apiserver starts, it reaches the apiserver once ready (the client is held meanwhile, not refused)', async () => {
  let early: Promise<unknown> | undefined;
  let readyYet = false;
  const wl = await env().startWorkloadCluster('wl-early', {
    onKubeconfig: async (kubeconfig) => {
      assert.not.ok(env().workloadClusters.has('wl-early'), 'called before the start resolves');
      const { KubeConfig, CoreV1Api } = await import('@kubernetes/client-node');
      const kc = new KubeConfig();
      kc.loadFromString(kubeconfig);
      // Sent now, answered once the apiserver serves: the front door holds the connection.
      early = kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' }).then((ns) => {
        assert.ok(readyYet, 'answered only after the apiserver was ready');
        return ns.metadata?.name;
      });
    },
  });
  readyYet = true;
  try {
    assert.ok(early, 'onKubeconfig was called');
    assert.is(await early, 'default');
    assert.match(wl.kubeconfig, wl.server);
    assert.is.not(wl.server, wl.apiserver.server, 'clients go through the front door');
  } finally {
    await env().stopWorkloadCluster('wl-early');
  }
});

test('a spare workload apiserver is taken by the next new name, already serving; a name served before gets its own objects back, not the spare', async () => {
  env().warmWorkloadCluster();
  const first = await env().startWorkloadCluster('wl-spare-a');
  try {
    assert.is(first.name, 'wl-spare-a');
    assert.match(first.apiserver.name, /^spare-/, 'the spare was taken');
    await first.apiserver.admin.client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kept' } });
    await env().stopWorkloadCluster('wl-spare-a');
    env().warmWorkloadCluster();
    const again = await env().startWorkloadCluster('wl-spare-a');
    assert.is(again.apiserver.name, 'wl-spare-a', 'started again under its name, the new spare left waiting');
    assert.is((await again.apiserver.admin.client.get<KubeObject>('/api/v1/namespaces/kept')).metadata?.name, 'kept', 'its objects are back');
    const second = await env().startWorkloadCluster('wl-spare-b');
    assert.match(second.apiserver.name, /^spare-/, 'the next new name takes the waiting spare');
    await rejects(second.apiserver.admin.client.get('/api/v1/namespaces/kept'));
  } finally {
    for (const name of ['wl-spare-a', 'wl-spare-b']) if (env().workloadClusters.has(name)) await env().stopWorkloadCluster(name);
  }
});

test.run();
