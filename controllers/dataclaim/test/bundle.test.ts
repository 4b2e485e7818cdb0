// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// with the credentials of a user bound to deploy/rbac.yaml and leader election on (the manifest's
// Role): ready, a sample claim gets its Metal3Data and status.renderedData, deleting it gives them
// back, and SIGTERM ends the process cleanly.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ControllerProcess, httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { bundle } from '../../../scripts/bundle.ts';
import { claimsBound, createClaim, createCluster, createTemplate, deleteClaimAsMachineController, eventually, getClaim, listData, RBAC_MANIFEST } from './support.ts';

const test = suite('bundled Metal3DataClaim controller under Node 24 and Deno 2');
const env = withSharedEnv(test);

let dir: string;
let bundlePath: string;
let admin: Client;
const running: ControllerProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dataclaim-bundle-'));
  bundlePath = join(dir, 'controller-dataclaim.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), bundlePath, { minify: true });
  admin = new Client(Transport.fromConnection(env().admin));
});

test.after(() => {
  for (const p of running) p.kill('SIGKILL');
  admin?.transport.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(runtime: Runtime): Promise<void> {
  const ns = await freshNamespace(env().admin.client, `dc-${runtime}`);
  const user = await userBoundTo(env(), `dataclaim-bundle-${runtime}`, RBAC_MANIFEST, ns);
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig', user.kubeconfigPath,
    '--namespace', ns,
    '--leader-elect', '--leader-elect-namespace', ns,
    '--metal3datatemplate-concurrency', '4',
    '--metrics-bind-address', '127.0.0.1:0',
    '--health-probe-bind-address', '127.0.0.1:0',
  ]);
  running.push(p);
  const probes = await p.address('readyz');
  await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 20_000);

  await createCluster(admin, ns);
  await createTemplate(admin, ns, 'sample');
  await createClaim(admin, ns, 'sample-machine', 'sample');
  assert.equal(await claimsBound(admin, ns, ['sample-machine'], 20_000), { 'sample-machine': 'sample-0' });
  const data = await admin.api(Metal3DataResource, ns).get('sample-0');
  assert.is(data.spec?.claim.name, 'sample-machine');
  const lease = await admin.api(LeaseResource, ns).get('controller-leader-election-capm3');
  assert.ok(lease.spec?.holderIdentity, 'leader election used the Role of deploy/rbac.yaml');

  await deleteClaimAsMachineController(admin, ns, 'sample-machine');
  await eventually(`${runtime}: claim and Metal3Data gone`, async () => ((await getClaim(admin, ns, 'sample-machine')) || (await listData(admin, ns)).length ? undefined : true), 20_000);

  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error' || l.level === 'warn'), `no warning or error logged (log tail:\n${p.tail()})`);
}

test('bundle under Node 24: ready under deploy/rbac.yaml with leader election, allocates and releases a sample claim, exits 0 on SIGTERM', async () => {
  await run('node');
});

test('the same bundle under Deno 2: ready, allocates and releases the sample claim, exits 0 on SIGTERM', async () => {
  await run('deno');
});

test.run();
