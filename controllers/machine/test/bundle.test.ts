// The deployable: src/main.ts bundled into one file starts under Node 24 and Deno 2 with the
// credentials of deploy/rbac.yaml and leader election on (the manifest's Role, bound in the test
// namespace as the sibling bundle tests do), becomes ready, associates a sample Metal3Machine with a
// host and takes it to ready with its provider ID (simulated BMO and workload cluster, real Cluster API),
// counts its reconciles in /metrics, releases a deleted machine's host (under Deno), and exits 0 on
// SIGTERM, giving the Lease back. One namespace and world for both runtimes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { httpGet, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { processTestScene, reconcileTotal, startController, waitReady } from './process-support.ts';
import { createAvailableHosts, createMachine, eventually, gone, hostWhen, metal3MachineWhen, v1, v2 } from './support.ts';

const test = suite('bundled Metal3Machine controller under Node 24 and Deno 2');
const scene = processTestScene(test, { prefix: 'machine-bundle', user: 'bundle' });

const LEASE = 'controller-leader-election-capm3';
const summary: string[] = [];

test.after(() => {
  if (summary.length > 0) console.log(`bundle: ${summary.join('; ')}`);
});

async function run(runtime: Runtime, host: string, machine: string, afterReady?: () => Promise<void>): Promise<void> {
  await createAvailableHosts(scene.client, scene.ns, [host]);

  const started = performance.now();
  const p = startController(scene.bundle.path, { runtime, kubeconfig: scene.kubeconfig, namespace: scene.ns, leaderElect: true, concurrency: 2 });
  const probes = await waitReady(p);
  const readyMs = performance.now() - started;
  const metricsAt = await p.address('metrics');

  await createMachine(scene.client, scene.ns, machine);
  const m3m = await metal3MachineWhen(
    scene.client,
    scene.ns,
    machine,
    `${runtime}: ${machine} ready with a provider ID`,
    (m) => m.status?.ready === true && !!m.spec?.providerID,
    30_000,
  );
  assert.is(m3m.spec?.providerID, `metal3://${scene.ns}/${host}/${machine}`);
  assert.is(m3m.metadata.annotations?.['metal3.io/BareMetalHost'], `${scene.ns}/${host}`);
  assert.ok(m3m.metadata.finalizers?.includes('metal3machine.infrastructure.cluster.x-k8s.io'));
  assert.is(v1(m3m, 'AssociateBMH'), 'True//');
  assert.is(v2(m3m, 'Ready'), 'True/Ready');
  const bmh = await scene.client.api(BareMetalHostResource, scene.ns).get(host);
  assert.equal(bmh.spec?.consumerRef, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: machine, namespace: scene.ns });
  assert.is(bmh.status?.provisioning?.state, 'provisioned');
  const readyAfterMs = performance.now() - started;

  const metrics = await httpGet(metricsAt, '/metrics');
  assert.is(metrics.status, 200);
  const reconciles = reconcileTotal(metrics.body);
  assert.ok(
    reconciles > 0,
    `controller_runtime_reconcile_total{controller="metal3machine"} counted (got:\n${
      metrics.body.split('\n').filter((l) => l.includes('reconcile_total')).join('\n')
    })`,
  );

  const lease = await scene.client.api(LeaseResource, scene.ns).get(LEASE);
  const holder = lease.spec?.holderIdentity ?? '';
  assert.ok(holder, 'the Lease is held under the Role of deploy/rbac.yaml');
  assert.ok(
    p.lines.some((l) => l.msg === 'starting manager' && String(l['leaderElection']) === `${scene.ns}/${LEASE}`),
    `leader election on (log tail:\n${p.tail()})`,
  );

  await afterReady?.();

  p.kill('SIGTERM');
  const exit = await p.exited;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error'), `no error logged (log tail:\n${p.tail()})`);
  const after = await scene.client.api(LeaseResource, scene.ns).get(LEASE);
  assert.is(after.spec?.holderIdentity ?? '', '', `SIGTERM released the Lease (was held by ${holder})`);
  assert.ok((await httpGet(probes, '/readyz').catch(() => undefined)) === undefined, 'the probe server is closed');
  summary.push(
    `${runtime} ready in ${(readyMs / 1000).toFixed(1)} s, ${machine} ready ${
      (readyAfterMs / 1000).toFixed(1)
    } s after start, ${reconciles} reconciles, exit 0`,
  );
}

test('bundle under Node 24: leader election under deploy/rbac.yaml, a sample Metal3Machine gets its host and becomes ready, exit 0 on SIGTERM with the Lease released', async () => {
  await run('node', 'host-node', 'm-node');
});

test('the same bundle under Deno 2: a second machine becomes ready on the second host; deleting both releases their hosts; exit 0 on SIGTERM', async () => {
  await run('deno', 'host-deno', 'm-deno', async () => {
    await scene.client.api(Metal3MachineResource, scene.ns).delete('m-node');
    await scene.client.api(Metal3MachineResource, scene.ns).delete('m-deno');
    await gone(scene.client, Metal3MachineResource, scene.ns, 'm-node', 30_000);
    await gone(scene.client, Metal3MachineResource, scene.ns, 'm-deno', 30_000);
    for (const host of ['host-node', 'host-deno']) {
      const h = await hostWhen(
        scene.client,
        scene.ns,
        host,
        `${host} released and available`,
        (x) => !x.spec?.consumerRef && x.status?.provisioning?.state === 'available',
        30_000,
      );
      assert.is(h.metadata.ownerReferences, undefined, `${host}: no owner reference left`);
    }
  });
  assert.equal(
    await eventually('no Metal3Machine', async () => ((await scene.client.api(Metal3MachineResource, scene.ns).list()).items.length === 0 ? [] : undefined)),
    [],
  );
});

test.run();
