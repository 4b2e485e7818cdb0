// The deployable: src/main.ts bundled into one file starts under Node 24 and Deno 2 with the
// credentials of deploy/rbac.yaml (leader election included), becomes ready, reconciles a sample
// Metal3Cluster owned by a Cluster (finalizer, defaults, ready, conditions) and exits 0 on SIGTERM.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { ControllerProcess, eventually, httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../scripts/bundle.ts';
import { createMetal3Cluster, metal3ClusterWhen, RBAC_MANIFEST, v1, v2 } from './support.ts';

const test = suite('Metal3Cluster controller bundle under Node 24 and Deno 2');
const env = withSharedEnv(test);

let dir: string;
let bundlePath: string;
let admin: Client;
const running: ControllerProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cluster-bundle-'));
  bundlePath = join(dir, 'controller-cluster.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), bundlePath, { minify: true });
  admin = new Client(Transport.fromConnection(env().admin));
});

test.after(() => {
  for (const p of running) p.kill('SIGKILL');
  admin?.transport.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(runtime: Runtime): Promise<void> {
  const ns = await freshNamespace(env().admin.client, `m3c-bundle-${runtime}`);
  const user = await userBoundTo(env(), `cluster-bundle-${runtime}-${ns}`, RBAC_MANIFEST, ns);
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig', user.kubeconfigPath,
    '--namespace', ns,
    '--leader-elect', '--leader-elect-namespace', ns,
    '--metrics-bind-address', '127.0.0.1:0',
    '--health-probe-bind-address', 'localhost:0',
    '--metal3cluster-concurrency', '2',
  ]);
  running.push(p);
  const probes = await p.address('readyz');
  await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 20_000);

  const cluster = await admin.api(ClusterResource, ns).create(newCluster({ metadata: { name: 'sample' }, spec: {} }));
  const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'sample', uid: cluster.metadata.uid!, controller: true, blockOwnerDeletion: true };
  await createMetal3Cluster(admin, ns, 'sample', { controlPlaneEndpoint: { host: 'api.sample.example', port: 0 } }, { ownerReferences: [owner] });
  const m3c = await metal3ClusterWhen(admin, ns, 'sample', `${runtime}: ready`, (m) => m.status?.ready === true, 20_000);
  assert.equal(m3c.metadata.finalizers, ['metal3cluster.infrastructure.cluster.x-k8s.io']);
  assert.equal(m3c.spec?.controlPlaneEndpoint, { host: 'api.sample.example', port: 6443 });
  assert.is(m3c.spec?.cloudProviderEnabled, true);
  assert.is(v1(m3c, 'BaremetalInfrastructureReady'), 'True//');
  assert.is(v1(m3c, 'Ready'), 'True//');
  assert.is(v2(m3c, 'Ready'), 'True/Ready');
  assert.is(v2(m3c, 'Paused'), 'False/NotPaused');
  const lease = await admin.api(LeaseResource, ns).get('controller-leader-election-capm3');
  assert.ok(lease.spec?.holderIdentity, 'the Lease is held under the Role of deploy/rbac.yaml');

  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error'), `no error logged (log tail:\n${p.tail()})`);
}

test('bundle under Node 24: ready, reconciles a sample Metal3Cluster, exits 0 on SIGTERM', async () => {
  await run('node');
});

test('bundle under Deno 2: ready, reconciles a sample Metal3Cluster, exits 0 on SIGTERM', async () => {
  await run('deno');
});

test.run();
