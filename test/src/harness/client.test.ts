// The harness client on the real apiserver: kubeconfig loading (certificates, token files), the
// client-side rate limiter, and the request counter and rest_client_* metrics.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ApiError, Client, type Connection, ignoreNotFound, Transport, UnauthorizedError } from '@metal3-ts/generated';
import { NamespaceResource, newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { ManualClock } from '@metal3-ts/shared/clock/clock';
import { newClient } from '@metal3-ts/shared/client/client';
import { KindRateLimiter } from '@metal3-ts/shared/client/kind-rate-limiter';
import { loadKubeConfigFile, loadKubeConfigSelection } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { eventually } from '../testing/eventually.ts';

const test = suite('harness client on the real apiserver');
const env = withSharedEnv(test);

let admin: Connection;
let dir = '';
const clients: Client[] = [];
const track = (c: Client): Client => (clients.push(c), c);

test.before(() => {
  admin = loadKubeConfigFile(env().kubeconfigPath);
  dir = mkdtempSync(join(tmpdir(), 'harness-client-'));
});

test.after(() => {
  for (const c of clients) c.transport.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Who the apiserver thinks the client is (SelfSubjectReview). */
async function whoAmI(client: Client): Promise<string> {
  const review = await client.transport.request<{ status: { userInfo: { username: string } } }>({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    verb: 'create',
    resource: 'selfsubjectreviews',
  });
  return review.status.userInfo.username;
}

test('the envtest kubeconfig file loads into a working Connection (context, CA, credentials)', async () => {
  const selection = loadKubeConfigSelection(env().kubeconfigPath);
  assert.is(selection.connection.server, env().admin.server);
  assert.is(selection.namespace, 'default');
  assert.ok(selection.connection.caPem?.includes('BEGIN CERTIFICATE'));
  const client = track(newClient(admin));
  assert.is(await whoAmI(client), env().admin.user);
  const names = (await client.api(NamespaceResource).list()).items.map((n) => n.metadata.name);
  assert.ok(names.includes('kube-system'));
});

test('ignoreNotFound(api.get(name)), the one get-or-undefined: the object, undefined for 404, any other refusal still thrown', async () => {
  const ns = await freshNamespace(env().admin.client, 'get-or-undefined');
  const secrets = track(newClient(admin)).api(SecretResource, ns);
  await secrets.create(newSecret({ metadata: { name: 'there' }, stringData: { k: 'v' } }));
  assert.is((await ignoreNotFound(secrets.get('there')))?.metadata.name, 'there');
  assert.is(await ignoreNotFound(secrets.get('absent')), undefined);
  const anonymous = track(new Client(Transport.fromConnection({ server: admin.server, ...(admin.caPem ? { caPem: admin.caPem } : {}) })));
  try {
    await ignoreNotFound(anonymous.api(SecretResource, ns).get('absent'));
    assert.unreachable('an unauthenticated read must not look like an absent object');
  } catch (error) {
    assert.ok(error instanceof ApiError && (error.code === 401 || error.code === 403), String(error));
  }
});

test('a kubeconfig tokenFile authenticates as the ServiceAccount; after a 401 the file is read again (rotation)', async () => {
  const ns = await freshNamespace(env().admin.client, 'tokenfile');
  await env().admin.client.create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
  const tokenPath = join(dir, 'token');
  // A token the apiserver refuses (an expired one, say) ...
  writeFileSync(tokenPath, 'not-a-valid-token');
  const kubeconfigPath = join(dir, 'robot.kubeconfig');
  writeFileSync(
    kubeconfigPath,
    stringify({
      clusters: [{ name: 'envtest', cluster: { server: admin.server, 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'robot', user: { tokenFile: 'token' } }],
      contexts: [{ name: 'robot', context: { cluster: 'envtest', user: 'robot' } }],
      'current-context': 'robot',
    }),
  );
  writeFileSync(join(dir, 'ca.crt'), admin.caPem ?? '');
  const client = track(newClient(loadKubeConfigFile(kubeconfigPath)));
  await whoAmI(client).then(
    () => assert.unreachable('accepted an invalid token'),
    (error: unknown) => assert.instance(error, UnauthorizedError),
  );
  // ... then the issuer writes a fresh one: the next request picks it up without a new client.
  writeFileSync(tokenPath, await env().serviceAccountToken(ns, 'robot'));
  assert.is(await whoAmI(client), `system:serviceaccount:${ns}:robot`);
});

test('qps 20 / burst 5 on one kind: of 45 concurrent lists 5 go at once, the other 40 hold slots 50 ms apart and go as the clock reaches them', async () => {
  const ns = await freshNamespace(env().admin.client, 'ratelimit');
  const counter = new RequestCounter();
  const clock = new ManualClock();
  const limiter = new KindRateLimiter(20, 5, clock);
  const client = track(newClient(admin, { limiter, clock, counter }));
  const secrets = client.api(SecretResource, ns);
  let answered = 0;
  const lists = Promise.all(Array.from({ length: 45 }, () => secrets.list({ limit: 1 }).then(() => answered++)));
  // A clock that never moves: the burst is answered, the rest wait on their reservations.
  const bucket = limiter.bucket('core/v1/secrets');
  await eventually('the burst answered, 40 slots reserved', () => (answered === 5 && bucket.tokens() === -40) || undefined);
  assert.is(counter.count(), 5);
  await clock.advance(1000); // 20 more slots due
  await eventually('the next 20 answered', () => (answered === 25 ? answered : undefined));
  assert.is(counter.count(), 25);
  await clock.advance(1000);
  await lists;
  assert.equal(counter.snapshot(), [{ verb: 'list', resource: 'secrets', code: '200', count: 45 }]);
});

test('the request counter and rest_client_* metrics see verb, resource and code of every request', async () => {
  const ns = await freshNamespace(env().admin.client, 'counter');
  const counter = new RequestCounter();
  const registry = new Registry();
  const client = track(newClient(admin, { counter, registry }));
  const secrets = client.api(SecretResource, ns);
  await secrets.create(newSecret({ metadata: { name: 's' }, stringData: { a: 'b' } }));
  await secrets.get('s');
  await secrets.get('absent').catch(() => undefined);
  await secrets.mergePatch('s', { metadata: { labels: { x: 'y' } } });
  await secrets.list();
  const controller = new AbortController();
  for await (const event of secrets.watch({ signal: controller.signal })) {
    if (event.type === 'ADDED') controller.abort();
  }
  await secrets.delete('s');
  assert.equal(counter.snapshot(), [
    { verb: 'create', resource: 'secrets', code: '201', count: 1 },
    { verb: 'delete', resource: 'secrets', code: '200', count: 1 },
    { verb: 'get', resource: 'secrets', code: '200', count: 1 },
    { verb: 'get', resource: 'secrets', code: '404', count: 1 },
    { verb: 'list', resource: 'secrets', code: '200', count: 1 },
    { verb: 'patch', resource: 'secrets', code: '200', count: 1 },
    { verb: 'watch', resource: 'secrets', code: '200', count: 1 },
  ]);
  const host = new URL(admin.server).host;
  const text = registry.render();
  for (
    const line of [
      `rest_client_requests_total{code="201",method="POST",host="${host}"} 1`,
      `rest_client_requests_total{code="200",method="GET",host="${host}"} 3`,
      `rest_client_requests_total{code="404",method="GET",host="${host}"} 1`,
      `rest_client_requests_total{code="200",method="PATCH",host="${host}"} 1`,
      `rest_client_requests_total{code="200",method="DELETE",host="${host}"} 1`,
      `rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 4`,
    ]
  ) {
    assert.ok(text.includes(line), `missing ${line} in\n${text}`);
  }
});

test.run();
