// The deployable: src/main.ts bundled into one file starts under Node 24 and Deno 2 with the
// credentials of deploy/rbac.yaml (leader election included), probes the IPAM kinds, becomes ready,
// renders a sample Metal3Data whose address comes from the IPAM simulator, finishes its template,
// releases the IP claim on deletion and exits 0 on SIGTERM.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { Metal3DataClaimResource, Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { ControllerProcess, eventually, httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { ipamSimulator, simulatorDeps, startSimulators, type RunningSimulators } from '@metal3-ts/test/sim/index';
import { bundle } from '../../../scripts/bundle.ts';
import { createPool, createScene, DATA, dataWhen, gone, HOST, M3M, RBAC_MANIFEST, secretText, TEMPLATE } from './support.ts';

const test = suite('bundled data controllers under Node 24 and Deno 2');
const env = withSharedEnv(test);

let dir: string;
let bundlePath: string;
let admin: Client;
let sims: RunningSimulators;
const running: ControllerProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'data-bundle-'));
  bundlePath = join(dir, 'controller-data.mjs');
  await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), bundlePath, { minify: true });
  admin = new Client(Transport.fromConnection(env().admin));
  const deps = simulatorDeps(env().admin);
  sims = await startSimulators(deps, ipamSimulator(deps));
});

test.after(async () => {
  for (const p of running) p.kill('SIGKILL');
  await sims?.stop();
  admin?.transport.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const TEMPLATE_SPEC = {
  metaData: { ipAddressesFromIPPool: [{ key: 'address', name: 'pool', apiGroup: 'ipam.metal3.io', kind: 'IPPool' }] },
  networkData: { links: { ethernets: [{ type: 'phy' as const, id: 'eth0', mtu: 1500, macAddress: { fromHostInterface: 'eth1' } }] } },
};

async function run(runtime: Runtime, extraFlags: string[], claimName: (ns: string) => string): Promise<void> {
  const ns = await freshNamespace(env().admin.client, `m3d-bundle-${runtime}`);
  const user = await userBoundTo(env(), `data-bundle-${runtime}-${ns}`, RBAC_MANIFEST, ns);
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig', user.kubeconfigPath,
    '--namespace', ns,
    '--leader-elect', '--leader-elect-namespace', ns,
    '--metrics-bind-address', '127.0.0.1:0',
    '--health-probe-bind-address', '127.0.0.1:0',
    '--metal3data-concurrency', '2',
    ...extraFlags,
  ]);
  running.push(p);
  const probes = await p.address('readyz');
  await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), 20_000);
  assert.ok(p.lines.some((l) => l.msg === 'IPAM kinds served' && l['metal3'] === true && l['capi'] === true), `D-2/D-3: both IPAM kinds found (log:\n${p.tail()})`);

  await createPool(admin, ns, 'pool', { pools: [{ subnet: '172.16.0.0/24' }], prefix: 24 });
  await createScene(admin, ns, { template: TEMPLATE_SPEC });
  await dataWhen(admin, ns, DATA, `${runtime}: ready`, (d) => d.status?.ready === true, 20_000);
  assert.is(await secretText(admin, ns, `${M3M}-metadata`, 'metaData'), `address: 172.16.0.1\nproviderid: ${ns}/${HOST}/${M3M}\n`);
  assert.ok((await secretText(admin, ns, `${M3M}-networkdata`, 'networkData'))?.includes('ethernet_mac_address: 00:11:22:33:44:66\n'), 'DR-23: not base-60, so plain');
  await admin.api(IPClaimResource, ns).get(claimName(ns));
  const template = await admin.api(Metal3DataTemplateResource, ns).get(TEMPLATE);
  assert.equal(template.metadata.finalizers, ['metal3datatemplate.infrastructure.cluster.x-k8s.io']);
  const lease = await admin.api(LeaseResource, ns).get('controller-leader-election-capm3');
  assert.ok(lease.spec?.holderIdentity, 'the Lease is held under the Role of deploy/rbac.yaml');

  await admin.api(Metal3DataClaimResource, ns).delete(M3M);
  await admin.api(Metal3DataResource, ns).delete(DATA);
  await gone(admin, Metal3DataResource, ns, DATA, 20_000);
  await gone(admin, IPClaimResource, ns, claimName(ns), 20_000);

  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error'), `no error logged (log tail:\n${p.tail()})`);
}

test('bundle under Node 24: ready under deploy/rbac.yaml, renders a sample Metal3Data with an IPAM address, releases it, exits 0 on SIGTERM', async () => {
  await run('node', [], () => `${DATA}-pool`);
});

test('the same bundle under Deno 2, with --enableBMHNameBasedPreallocation (D-17): the claim is <host>-<pool>', async () => {
  await run('deno', ['--enableBMHNameBasedPreallocation'], () => `${HOST}-pool`);
});

test.run();
