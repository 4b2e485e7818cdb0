// Issue 21 point 4: a workload kubeconfig Secret that can never work (junk, an exec credential
// plugin, references to files on the controller's disk) is refused without running or reading
// anything, and the refusal reaches the Metal3Machine: KubernetesNodeReady False (Warning) naming the
// Secret and the problem, and a Warning event WorkloadClusterUnusable, instead of an info line only.
// Once the Secret is gone the condition says what is awaited (severity Info), not the old failure.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { KUBERNETES_NODE_READY } from '../src/names.ts';
import { createClusterScene, createMachine, eventsFor, eventually, machineTestScene, metal3MachineWhen, PROVISION_MS } from './support.ts';

const test = suite('Metal3Machine with an unusable workload kubeconfig');
const scene = machineTestScene(test, { prefix: 'machine-kubeconfig', world: { workload: false }, cluster: false, hosts: ['h-junk', 'h-exec', 'h-file'] });

const marker = join(tmpdir(), `metal3-ts-exec-marker-${process.pid}`);
const kubeconfig = (user: object, cluster: object = { server: 'https://127.0.0.1:1' }) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
  });

const CASES = [
  { name: 'junk', value: 'clusters: [ {{ not yaml', says: 'not valid YAML' },
  {
    name: 'exec',
    value: kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `touch ${marker}`] } }),
    says: 'exec credential plugin ("sh"), which is not supported',
  },
  {
    name: 'file',
    value: kubeconfig({ token: 't' }, { server: 'https://127.0.0.1:1', 'certificate-authority': '/etc/passwd' }),
    says: 'refers to a file, which is not allowed here',
  },
];

for (const c of CASES) {
  test(`${c.name} kubeconfig: KubernetesNodeReady False (Warning) and a Warning event naming the Secret; nothing run or read; the Secret gone, a wait`, async () => {
    const { client, ns } = scene;
    const cluster = `wl-${c.name}`;
    await createClusterScene(client, ns, { name: cluster });
    await client.api(SecretResource, ns).create(
      newSecret({ metadata: { name: `${cluster}-kubeconfig` }, type: 'cluster.x-k8s.io/secret', stringData: { value: c.value } }),
    );
    await createMachine(client, ns, `m-${c.name}`, { cluster });
    const secret = `Secret ${ns}/${cluster}-kubeconfig`;
    const m3m = await metal3MachineWhen(client, ns, `m-${c.name}`, `KubernetesNodeReady False naming ${secret}`, (m) => {
      const condition = getCondition(m, KUBERNETES_NODE_READY);
      return condition?.status === 'False' && condition.severity === 'Warning' && !!condition.message?.includes(secret) && condition.message.includes(c.says);
    }, PROVISION_MS);
    const events = await eventually('a Warning event WorkloadClusterUnusable', async () => {
      const found = await eventsFor(client, ns, `m-${c.name}`, 'WorkloadClusterUnusable');
      return found.length > 0 ? found : undefined;
    });
    assert.is(events[0]?.type, 'Warning');
    assert.is(events[0]?.message, getCondition(m3m, KUBERNETES_NODE_READY)?.message);
    assert.not.ok(existsSync(marker), 'the exec plugin was not run');
    assert.not.ok(events[0]?.message?.includes('root:'), 'no file content in the message');
    await client.api(SecretResource, ns).delete(`${cluster}-kubeconfig`);
    await metal3MachineWhen(client, ns, `m-${c.name}`, 'a plain wait on KubernetesNodeReady', (m) => {
      const condition = getCondition(m, KUBERNETES_NODE_READY);
      return condition?.severity === 'Info' && !!condition.message?.includes('not found');
    }, PROVISION_MS);
  });
}

test.run();
