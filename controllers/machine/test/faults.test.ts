// Issue 21 point 2 with the Metal3Machine controller itself: the bundle, under the credentials of
// deploy/rbac.yaml, talks to the apiserver through the fault-injection proxy. Three machines become
// ready, then every open connection is black-holed (bytes accepted, nothing back, no reset; new
// connections work) and three more machines appear, as in the MachineDeployment scaled up.
// They must be ready with their provider IDs within 20 s, with client settings shortened so the
// test is quick (2 s request deadline, 4 s watch inactivity; the defaults' bound is in
// docs/harness.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { ApiProxy, type Upstream } from '@metal3-ts/test/harness/api-proxy';
import { processTestScene, startController, waitReady } from './process-support.ts';
import { metal3MachineWhen } from './readers.ts';
import { createAvailableHosts, createMachine, RBAC_MANIFEST } from './support.ts';

const test = suite('bundled Metal3Machine controller through a black-holed connection');
const scene = processTestScene(test, { prefix: 'machine-faults' });

const ready = (name: string, what: string, timeoutMs: number) =>
  metal3MachineWhen(scene.client, scene.ns, name, what, (m) => m.status?.ready === true && !!m.spec?.providerID, timeoutMs);

test('21.2/M-12: machines created while the open connections are black-holed are ready ≤ 20 s later; the controller dials anew', async () => {
  const user = await userBoundTo(scene.env, `machine-faults-${scene.ns}`, RBAC_MANIFEST, scene.ns);
  const proxy = await ApiProxy.start(user as Upstream);
  const kubeconfig = join(scene.env.dir, `machine-faults-${scene.ns}.kubeconfig`);
  writeFileSync(kubeconfig, proxy.kubeconfig());
  try {
    await createAvailableHosts(scene.client, scene.ns, ['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
    const p = startController(scene.bundle.path, {
      kubeconfig,
      namespace: scene.ns,
      concurrency: 3,
      extraArgs: ['--kube-api-timeout=2s', '--kube-api-list-timeout=4s', '--watch-inactivity-timeout=4s'],
    });
    await waitReady(p);
    for (const name of ['m0', 'm1', 'm2']) await createMachine(scene.client, scene.ns, name);
    for (const name of ['m0', 'm1', 'm2']) await ready(name, `${name} ready before the fault`, 30_000);

    const pooled = proxy.openConnections;
    const startedAt = performance.now();
    proxy.blackHole({ newConnections: false });
    for (const name of ['m3', 'm4', 'm5']) await createMachine(scene.client, scene.ns, name);
    for (const name of ['m3', 'm4', 'm5']) await ready(name, `${name} ready through the black hole`, 30_000);
    const tookMs = performance.now() - startedAt;
    console.log(`machine controller, black hole of ${pooled} open connections: 3 new machines ready ${(tookMs / 1000).toFixed(1)} s after it started`);
    assert.ok(tookMs <= 20_000, `ready ${(tookMs / 1000).toFixed(1)} s after the black hole started`);
    // The fault reached the controller: its open watches froze, or a request went into the hole (which
    // of the two happens first depends on whether a reconcile was sending when the hole opened).
    assert.ok(proxy.frozen > 0 || proxy.requests.some((r) => r.outcome === 'black-holed'), 'the controller did meet its dead connections');
    assert.is(p.child.exitCode, null, 'still running');
    p.kill('SIGTERM');
    assert.is((await p.exited).code, 0);
  } finally {
    await proxy.close();
  }
});

test.run();
