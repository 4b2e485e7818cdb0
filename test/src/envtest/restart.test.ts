// Restarts in place, as the chaos run and the lab's outage tests use them: the kube-apiserver stopped
// and started again on the same port and certificates, and etcd stopped and started on the same
// ports and data directory. Objects written before survive both, and the same admin connection (same
// kubeconfig) works afterwards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEnv, type TestEnv } from './env.ts';
import type { KubeObject } from './http.ts';
import { waitFor } from './processes.ts';

const test = suite('envtest: restarts in place');
let env: TestEnv;

test.before(async () => {
  env = await startEnv({ crds: false });
});
test.after(async () => {
  await env?.stop();
});

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { kept: 'yes' } });

/** The apiserver answers again (a restarted etcd takes the apiserver a moment to reconnect to). */
const answers = () =>
  waitFor('the apiserver answering a GET', () => env.admin.client.get<KubeObject & { data?: Record<string, string> }>(`${CONFIGMAPS}/before`), {
    timeoutMs: 30_000,
    intervalMs: 200,
  });

test('the kube-apiserver restarted on the same port: a new process, the same kubeconfig works after, objects kept', async () => {
  await env.admin.client.create(CONFIGMAPS, configMap('before'));
  const { server } = env.admin;
  const oldPid = env.management.process.pid;
  await env.restartApiServer(1000);
  assert.is.not(env.management.process.pid, oldPid, 'a new process');
  assert.is(env.management.server, server, 'same address');
  const kept = await answers();
  assert.equal(kept.data, { kept: 'yes' });
  await env.admin.client.create(CONFIGMAPS, configMap('after-apiserver'));
});

test('etcd restarted on the same ports and data: a new process, every object back', async () => {
  const oldPid = env.etcd.process.pid;
  await env.restartEtcd(1000);
  assert.is.not(env.etcd.process.pid, oldPid, 'a new etcd process');
  await answers();
  const names = (await env.admin.client.get<{ items: KubeObject[] }>(CONFIGMAPS)).items.map((c) => c.metadata?.name);
  assert.ok(names.includes('before') && names.includes('after-apiserver'), `objects kept: ${names.join(', ')}`);
  await env.admin.client.create(CONFIGMAPS, configMap('after-etcd'));
});

test.run();
