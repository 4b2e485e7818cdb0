// The bundled controller (src/main.ts through scripts/bundle.ts) as a process under Node 24 and Deno 2,
// with the credentials of a user bound to deploy/rbac.yaml and leader election on (the manifest's
// Role): ready, and a Metal3Machine cloned from a sample template gets the template's mode. The
// process runs with `--watch-filter`, which (T-3, as CAPM3's main.go) this controller does not apply:
// the unlabelled sample is still reconciled.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { EventResource } from '@metal3-ts/generated/core/v1';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { ControllerProcess, httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { bundle } from '../../../scripts/bundle.ts';
import { createMachine, createTemplate, eventually, modesBecome, RBAC_MANIFEST } from './support.ts';

const test = suite('bundled Metal3MachineTemplate controller under Node 24 and Deno 2');
const env = withSharedEnv(test);

let dir: string;
let bundlePath: string;
let admin: Client;
const running: ControllerProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'template-bundle-'));
  bundlePath = join(dir, 'controller-template.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), bundlePath, { minify: true });
  admin = new Client(Transport.fromConnection(env().admin));
});

test.after(() => {
  for (const p of running) p.kill('SIGKILL');
  admin?.transport.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(runtime: Runtime): Promise<void> {
  const ns = await freshNamespace(env().admin.client, `tmpl-${runtime}`);
  const user = await userBoundTo(env(), `template-bundle-${runtime}`, RBAC_MANIFEST, ns);
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig', user.kubeconfigPath,
    '--namespace', ns,
    '--leader-elect', '--leader-elect-namespace', ns,
    '--watch-filter', 'some-other-instance',
    '--metrics-bind-address', '127.0.0.1:0',
    '--health-probe-bind-address', '127.0.0.1:0',
  ]);
  running.push(p);
  const probes = await p.address('readyz');
  await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 20_000);

  await createTemplate(admin, ns, 'sample', { mode: 'disabled' });
  await createMachine(admin, ns, 'sample-0', { from: 'sample', mode: 'metadata' });
  await modesBecome(admin, ns, { 'sample-0': 'disabled' }, 20_000);
  const event = await eventually(`${runtime}: event`, async () =>
    (await admin.api(EventResource, ns).list()).items.find((e) => e.reason === 'AutomatedCleaningModeUpdated'),
  );
  assert.is(event.reportingComponent, 'metal3machinetemplate-controller');
  assert.is(event.involvedObject.name, 'sample-0');
  const lease = await admin.api(LeaseResource, ns).get('controller-leader-election-capm3');
  assert.ok(lease.spec?.holderIdentity, 'leader election used the Role of deploy/rbac.yaml');

  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error'), `no error logged (log tail:\n${p.tail()})`);
}

test('bundle under Node 24: ready under deploy/rbac.yaml, reconciles a sample template onto its cloned Metal3Machine (T-3: --watch-filter not applied), exits 0 on SIGTERM', async () => {
  await run('node');
});

test('the same bundle under Deno 2: ready, reconciles the sample, exits 0 on SIGTERM', async () => {
  await run('deno');
});

test.run();
