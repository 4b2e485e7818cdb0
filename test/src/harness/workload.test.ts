// Workload-cluster clients on real apiservers: the ClusterCache builds a client from the
// `<cluster>-kubeconfig` Secret, reuses it, rebuilds it when the Secret changes, drops it on 401,
// reports an unreachable cluster with a typed error and recovers once the cluster is back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import { stringify } from 'yaml';
import { type Client, UnauthorizedError } from '@metal3-ts/generated';
import { NamespaceResource, newNamespace, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { ClusterNotReachableError, InvalidKubeconfigSecretError, KubeconfigSecretNotFoundError } from '@metal3-ts/shared/workload/errors';
import type { WorkloadCluster } from '../envtest/workload.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';

const test = suite('workload cluster clients (ClusterCache) on real apiservers');
const env = withSharedEnv(test);

// Unique per process: other suites sharing the environment may start their own workload clusters.
const WL = `cc-${process.pid}`;
const MARKER = 'only-in-the-workload-cluster';

let management: Client;
let cache: ClusterCache;
let wl: WorkloadCluster;
let ns = '';

test.before(async () => {
  management = newClient(loadKubeConfigFile(env().kubeconfigPath));
  // A short grace: dropped transports are closed before the test ends.
  cache = new ClusterCache(management, { closeGraceMs: 100, probeTimeoutMs: 3_000 });
  wl = await env().startWorkloadCluster(WL);
  await wl.apiserver.admin.client.create('/api/v1/namespaces', newNamespace({ metadata: { name: MARKER } }));
  ns = await freshNamespace(env().admin.client, 'clustercache');
});

test.after(async () => {
  cache.close();
  management.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

const secrets = () => management.api(SecretResource, ns);
const key = (name: string) => ({ namespace: ns, name });
const namespaces = async (c: Client) => (await c.api(NamespaceResource).list()).items.map((n) => n.metadata.name);

/** Creates or replaces `<cluster>-kubeconfig` with `kubeconfig` as its value. */
async function putKubeconfig(cluster: string, kubeconfig: string): Promise<void> {
  const data = { value: Buffer.from(kubeconfig).toString('base64') };
  const existing = await secrets().get(`${cluster}-kubeconfig`).catch(() => undefined);
  if (existing) await secrets().replace({ ...existing, data });
  else await secrets().create(wl.kubeconfigSecret(ns, cluster) as unknown as Secret).then((s) => secrets().replace({ ...s, data }));
}

/** A kubeconfig for the workload apiserver with the given bearer token. */
const withToken = (token: string) =>
  stringify({
    clusters: [{ name: WL, cluster: { server: wl.apiserver.admin.server, 'certificate-authority-data': wl.apiserver.admin.caData } }],
    users: [{ name: 'someone', user: { token } }],
    contexts: [{ name: 'c', context: { cluster: WL, user: 'someone' } }],
    'current-context': 'c',
  });

async function rejects(p: Promise<unknown>, kind: abstract new (...args: never[]) => Error): Promise<Error> {
  try {
    await p;
  } catch (error) {
    assert.instance(error, kind);
    return error as Error;
  }
  throw new Error(`expected ${kind.name}`);
}

test('the kubeconfig Secret yields a working client for the workload cluster, the same one on the next call', async () => {
  await secrets().create(wl.kubeconfigSecret(ns, 'c1') as unknown as Secret);
  const client = await cache.get(key('c1'));
  const names = await namespaces(client);
  assert.ok(names.includes(MARKER), `workload namespaces: ${names.join(', ')}`);
  assert.not.ok(names.includes(ns), 'the workload client listed the management cluster');
  assert.is(await cache.get(key('c1')), client);
});

test('two clusters get isolated clients, even when their kubeconfigs name the same user', async () => {
  // c2 "is" the management cluster: its kubeconfig is the envtest admin's, whose user has the same
  // name as the workload admin's (client-node would share credentials by that name, #592).
  const userOf = (kubeconfig: string) => /users:\n\s+- name: (\S+)/.exec(kubeconfig)?.[1];
  assert.is(userOf(env().admin.kubeconfig), userOf(wl.kubeconfig));
  await putKubeconfig('c2', env().admin.kubeconfig);
  const [c1, c2] = await Promise.all([cache.get(key('c1')), cache.get(key('c2'))]);
  const [n1, n2] = await Promise.all([namespaces(c1), namespaces(c2)]);
  assert.ok(n1.includes(MARKER) && !n1.includes(ns));
  assert.ok(n2.includes(ns) && !n2.includes(MARKER));
});

test('a changed Secret rebuilds the client: new credentials, new cluster, observably different', async () => {
  const before = await cache.get(key('c1'));
  await putKubeconfig('c1', env().admin.kubeconfig);
  const after = await cache.get(key('c1'));
  assert.is.not(after, before);
  assert.ok((await namespaces(after)).includes(ns), 'the rebuilt client should talk to the management cluster now');
  await putKubeconfig('c1', wl.kubeconfig);
  assert.ok((await namespaces(await cache.get(key('c1')))).includes(MARKER));
});

test('a missing Secret, a Secret without "value" and a bad token each give their typed error', async () => {
  await rejects(cache.get(key('absent')), KubeconfigSecretNotFoundError);
  await secrets().create({ ...(wl.kubeconfigSecret(ns, 'novalue') as unknown as Secret), data: { other: 'eA==' } });
  await rejects(cache.get(key('novalue')), InvalidKubeconfigSecretError);
  await putKubeconfig('badtoken', withToken('not-a-valid-token'));
  const error = await rejects(cache.get(key('badtoken')), ClusterNotReachableError);
  assert.instance(error.cause, UnauthorizedError);
  assert.not.ok(cache.has(key('badtoken')));
});

test('a 401 from the workload cluster drops the cached client', async () => {
  // A ServiceAccount of the workload cluster: deleting it revokes its token.
  const wlAdmin = wl.apiserver.admin.client;
  await wlAdmin.create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'capm3' } });
  await wlAdmin.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'capm3-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'capm3', namespace: 'default' }],
  });
  const minted = await wlAdmin.create<{ status: { token: string } }>('/api/v1/namespaces/default/serviceaccounts/capm3/token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  await putKubeconfig('sa', withToken(minted.status.token));
  const client = await cache.get(key('sa'));
  assert.ok((await namespaces(client)).includes(MARKER));
  await wlAdmin.delete('/api/v1/namespaces/default/serviceaccounts/capm3');
  // The apiserver caches a successful token check for up to 10 s; poll until it notices.
  let refused = false;
  for (let i = 0; i < 150 && !refused; i++) {
    refused = await namespaces(client).then(
      () => new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
      (error: unknown) => (assert.instance(error, UnauthorizedError), true),
    );
  }
  assert.ok(refused, 'the revoked token was never refused');
  assert.not.ok(cache.has(key('sa')), 'the client survived a 401');
  const error = await rejects(cache.get(key('sa')), ClusterNotReachableError);
  assert.instance(error.cause, UnauthorizedError);
});

test('a stopped workload apiserver gives ClusterNotReachableError; after a restart and a Secret update the cache recovers', async () => {
  const client = await cache.get(key('c1'));
  await env().stopWorkloadCluster(WL);
  const failure = await namespaces(client).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error,
  );
  assert.ok(failure && ['ECONNREFUSED', 'ECONNRESET'].includes(failure.code ?? ''), `request to a stopped cluster: ${failure}`);
  const error = await rejects(cache.get(key('c1')), ClusterNotReachableError);
  assert.ok(error.message.includes(`${ns}/c1`));
  assert.not.ok(cache.has(key('c1')));

  // The restarted control plane keeps its objects but has a new endpoint and credentials.
  wl = await env().startWorkloadCluster(WL);
  await rejects(cache.get(key('c1')), ClusterNotReachableError);
  await putKubeconfig('c1', wl.kubeconfig);
  const recovered = await cache.get(key('c1'));
  assert.is.not(recovered, client);
  assert.ok((await namespaces(recovered)).includes(MARKER));
});

test.run();
