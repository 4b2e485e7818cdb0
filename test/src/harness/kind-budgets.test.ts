// The client's per-kind budgets on the real apiserver (--kube-api-qps/--kube-api-burst with
// controller-runtime's meaning): each resource kind spends from its own token bucket, a subresource
// from its parent's. Time is a ManualClock that never moves unless told, so "went without waiting"
// is proven by a request finishing at all, and "waits" by the limiter's own accounting.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client, Connection } from '@metal3-ts/generated';
import { ConfigMapResource, NamespaceResource, newConfigMap, newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { ManualClock } from '@metal3-ts/shared/clock/clock';
import { newClient } from '@metal3-ts/shared/client/client';
import { KindRateLimiter } from '@metal3-ts/shared/client/kind-rate-limiter';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { eventually } from '../testing/eventually.ts';

const test = suite('per-kind client budgets on the real apiserver');
const env = withSharedEnv(test);

let admin: Connection;
const clients: Client[] = [];
const track = (c: Client): Client => (clients.push(c), c);

test.before(() => {
  admin = loadKubeConfigFile(env().kubeconfigPath);
});

test.after(() => {
  for (const c of clients) c.transport.close();
});

test('qps 1 / burst 1 per kind: a Secret, a ConfigMap and a Namespace get go at once; the next Secret list and the namespace status each wait for their own kind', async () => {
  const ns = await freshNamespace(env().admin.client, 'kind-budgets');
  const setup = track(newClient(admin));
  await setup.api(SecretResource, ns).create(newSecret({ metadata: { name: 's' }, stringData: { k: 'v' } }));
  await setup.api(ConfigMapResource, ns).create(newConfigMap({ metadata: { name: 'c' }, data: { k: 'v' } }));

  const clock = new ManualClock();
  const limiter = new KindRateLimiter(1, 1, clock);
  const counter = new RequestCounter();
  const client = track(newClient(admin, { limiter, clock, counter }));
  // Sent together: one shared bucket of burst 1 would hold two of them until the clock moved, and
  // the wait below would time out instead of the test hanging.
  const names: string[] = [];
  void Promise.all([client.api(SecretResource, ns).get('s'), client.api(ConfigMapResource, ns).get('c'), client.api(NamespaceResource).get(ns)]).then(
    (objects) => names.push(...objects.map((o) => o.metadata.name ?? '')),
  );
  await eventually('a Secret, a ConfigMap and a Namespace read at once', () => (names.length === 3 ? names : undefined));
  assert.equal(names, ['s', 'c', ns]);
  assert.is(clock.now(), 0);
  assert.equal(limiter.keys(), ['core/v1/configmaps', 'core/v1/namespaces', 'core/v1/secrets']);

  // Each of those kinds spent its token: a list of Secrets and the namespace's status subresource
  // (its parent's bucket) now hold a slot one second ahead; the ConfigMaps' bucket is untouched by them.
  const list = client.api(SecretResource, ns).list();
  const status = client.api(NamespaceResource).getStatus(ns);
  const waiting = (key: string) => limiter.bucket(key).tokens() === -1;
  await eventually('the list and the status waiting in their kinds’ buckets', () => (waiting('core/v1/secrets') && waiting('core/v1/namespaces')) || undefined);
  assert.is(limiter.bucket('core/v1/configmaps').tokens(), 0);
  assert.is(counter.count(), 3, 'nothing more was sent while they wait');

  await clock.advance(1000);
  assert.is((await list).items.length, 1);
  assert.is((await status).metadata.name, ns);
  assert.equal(counter.snapshot(), [
    { verb: 'get', resource: 'configmaps', code: '200', count: 1 },
    { verb: 'get', resource: 'namespaces', code: '200', count: 2 },
    { verb: 'get', resource: 'secrets', code: '200', count: 1 },
    { verb: 'list', resource: 'secrets', code: '200', count: 1 },
  ]);
});

test('qps <= 0 turns the client-side limit off: five concurrent lists of one kind at burst 1 finish on a clock that never moves', async () => {
  const ns = await freshNamespace(env().admin.client, 'kind-budgets-off');
  const counter = new RequestCounter();
  const client = track(newClient(admin, { qps: 0, burst: 1, clock: new ManualClock(), counter }));
  let answered = 0;
  for (let i = 0; i < 5; i++) void client.api(SecretResource, ns).list({ limit: 1 }).then(() => answered++);
  await eventually('five lists answered', () => (answered === 5 ? answered : undefined));
  assert.is(counter.count({ verb: 'list' }), 5);
});

test.run();
