// The manager on the real apiserver: the example controller bundled into one file runs under Node 24
// and Deno 2 (readiness, a reconcile through the whole stack, an Event, controller-runtime metric
// names, SIGTERM draining an in-flight reconcile, lease released); leader election between managers
// in this process (only the leader reconciles; a crashed leader is replaced after the lease runs out,
// a released one at once) and between two processes (SIGKILL of the leader hands over).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@metal3-ts/generated';
import { type ConfigMap, ConfigMapResource, EventResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { leaseLock } from '@metal3-ts/shared/leader/lease-lock';
import { Manager } from '@metal3-ts/shared/manager/manager';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { bundle } from '../../../scripts/bundle.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { ControllerProcess, eventually, httpGet, repoRoot, type Runtime, sample, sleep } from './controller-process.ts';

const test = suite('manager, leader election and the bundled entry point on the real apiserver');
const env = withSharedEnv(test);

const EXAMPLE = 'metal3-ts.dev/example';
const RECONCILED = 'metal3-ts.dev/reconciled';
const DELAY = 'metal3-ts.dev/delay-ms';
const timings = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const electionFlags = ['--leader-elect', '--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period=300ms'];

let dir: string;
let bundlePath: string;
let client: Client;
const running: ControllerProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'manager-test-'));
  bundlePath = join(dir, 'bundle.mjs');
  await bundle(join(repoRoot, 'shared', 'src', 'entry', 'testdata', 'example-main.ts'), bundlePath);
  client = newClient(loadKubeConfigFile(env().kubeconfigPath));
});

test.after(() => {
  for (const p of running) p.kill('SIGKILL');
  client?.transport.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startController(runtime: Runtime, namespace: string, extra: readonly string[] = []): ControllerProcess {
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig',
    env().kubeconfigPath,
    '--namespace',
    namespace,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    'localhost:0', // a second server (the same address would share one)
    '--graceful-shutdown-timeout=10s',
    ...extra,
  ]);
  running.push(p);
  return p;
}

const exampleMap = (name: string, value: string, annotations: Record<string, string> = {}): ConfigMap =>
  newConfigMap({ metadata: { name, labels: { [EXAMPLE]: value }, annotations }, data: { k: 'v' } });

async function reconciledValue(namespace: string, name: string): Promise<string | undefined> {
  return (await client.api(ConfigMapResource, namespace).get(name)).metadata.annotations?.[RECONCILED];
}

async function fullRun(runtime: Runtime): Promise<void> {
  const ns = await freshNamespace(env().admin.client, `mgr-${runtime}`);
  const p = startController(runtime, ns, [...electionFlags, '--leader-elect-namespace', ns]);
  const probes = await p.address('readyz');
  const metrics = await p.address('metrics');
  await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined));
  assert.match((await httpGet(probes, '/readyz?verbose')).body, /\[\+\]informers ok/);
  assert.is((await httpGet(probes, '/healthz')).status, 200);

  const configMaps = client.api(ConfigMapResource, ns);
  await configMaps.create(exampleMap('quick', 'one'));
  await configMaps.create(newConfigMap({ metadata: { name: 'unlabelled' } }));
  await eventually(`${runtime}: quick reconciled`, async () => ((await reconciledValue(ns, 'quick')) === 'one' ? true : undefined));
  const events = await eventually(`${runtime}: Reconciled event`, async () => {
    const list = await client.api(EventResource, ns).list();
    return list.items.find((e) => e.involvedObject.name === 'quick' && e.reason === 'Reconciled');
  });
  assert.is(events.reportingComponent, 'example-controller');
  assert.is(events.type, 'Normal');
  assert.is((await configMaps.get('unlabelled')).metadata.annotations?.[RECONCILED], undefined, 'the event filter skipped it');

  const scraped = await httpGet(metrics, '/metrics');
  assert.is(scraped.type, 'text/plain; version=0.0.4; charset=utf-8');
  for (
    const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_time_seconds',
      'workqueue_depth',
      'rest_client_requests_total',
      'leader_election_master_status',
    ]
  ) {
    assert.match(scraped.body, new RegExp(`^# TYPE ${name} `, 'm'), `${name} exposed`);
  }
  assert.ok((sample(scraped.body, 'controller_runtime_reconcile_total{controller="example-configmap",result="success"}') ?? 0) >= 1);
  assert.is(sample(scraped.body, 'leader_election_master_status{name="metal3-ts-example"}'), 1);
  assert.match(scraped.body, /^rest_client_requests_total\{code="201",method="POST",host="127\.0\.0\.1:\d+"\} \d+/m);

  // SIGTERM while a 2 s reconcile is in flight: it finishes and writes, then the process exits 0.
  await configMaps.create(exampleMap('slow', 'two', { [DELAY]: '2000' }));
  await p.waitForLine((l) => l.msg === 'slow reconcile started' && l['name'] === 'slow');
  const termAt = performance.now();
  p.kill('SIGTERM');
  const exit = await p.exited;
  const tookMs = exit.atMs - termAt;
  assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
  assert.ok(tookMs > 1000 && tookMs < 10_000, `${runtime} drained in ${tookMs.toFixed(0)} ms`);
  assert.is(await reconciledValue(ns, 'slow'), 'two', 'the in-flight reconcile finished its write');
  const lease = await client.api(LeaseResource, ns).get('metal3-ts-example');
  assert.is(lease.spec?.holderIdentity ?? '', '', `lease released on shutdown (log tail:\n${p.tail()})`);
  assert.ok(p.lines.some((l) => l.msg === 'stopped'));
}

test('bundled example controller under Node 24: ready, reconciles, metrics, events, SIGTERM drains in-flight work', async () => {
  await fullRun('node');
});

test('the same bundle under Deno 2: ready, reconciles, metrics, events, SIGTERM drains in-flight work', async () => {
  await fullRun('deno');
});

interface Candidate {
  readonly manager: Manager;
  readonly reconciled: string[];
  readonly stop: AbortController;
  readonly done: Promise<void>;
  leaderAt?: number;
}

function candidate(ns: string, identity: string, releaseOnCancel: boolean): Candidate {
  const registry = new Registry();
  const c = newClient(loadKubeConfigFile(env().kubeconfigPath), { registry });
  const informers = new InformerFactory(c, { namespace: ns, registry });
  const manager = new Manager({ registry, leaderElection: { lock: leaseLock(c, ns, 'election'), identity, releaseOnCancel, ...timings } });
  manager.add({ name: 'informers', needsLeaderElection: false, start: (s) => informers.start(s) });
  const reconciled: string[] = [];
  const result: Candidate = { manager, reconciled, stop: new AbortController(), done: Promise.resolve() };
  manager.add(
    controllerFor('election', ConfigMapResource, { informers, registry }).build((request) => {
      result.leaderAt ??= performance.now();
      reconciled.push(request.name);
      return Promise.resolve({});
    }),
  );
  const done = manager.start(result.stop.signal).finally(() => c.transport.close());
  return Object.assign(result, { done });
}

test('in-process managers on one Lease: only the leader reconciles; a crashed leader is replaced after the lease expires, a released one at once', async () => {
  const ns = await freshNamespace(env().admin.client, 'election');
  const a = candidate(ns, 'a', false);
  await eventually('a leads', () => (a.manager.isLeader() ? true : undefined));
  const b = candidate(ns, 'b', true);
  for (const name of ['x', 'y', 'z']) await client.api(ConfigMapResource, ns).create(newConfigMap({ metadata: { name } }));
  await eventually('a reconciled x, y, z', () => (['x', 'y', 'z'].every((n) => a.reconciled.includes(n)) ? true : undefined));
  await sleep(timings.leaseDurationMs + 500);
  assert.equal(b.reconciled, [], 'the follower reconciled nothing');
  assert.not.ok(b.manager.isLeader());

  // Crash: a stops renewing without releasing. b must wait out the lease, then take over.
  const crashedAt = performance.now();
  a.stop.abort();
  await a.done;
  await eventually('b leads', () => (b.manager.isLeader() ? true : undefined), 5000);
  const takeover = performance.now() - crashedAt;
  assert.ok(takeover > timings.leaseDurationMs - timings.retryPeriodMs - 200, `b waited for the lease (${takeover.toFixed(0)} ms)`);
  assert.ok(takeover < timings.leaseDurationMs + 2.2 * timings.retryPeriodMs + 600, `b took over within the lease duration (${takeover.toFixed(0)} ms)`);
  await eventually('b reconciled the existing objects', () => (['x', 'y', 'z'].every((n) => b.reconciled.includes(n)) ? true : undefined));
  const lease = await client.api(LeaseResource, ns).get('election');
  assert.is(lease.spec?.holderIdentity, 'b');
  assert.is(lease.spec?.leaseTransitions, 1);

  // Clean stop: b releases, c takes over at its next attempt.
  const c = candidate(ns, 'c', true);
  await sleep(800);
  assert.not.ok(c.manager.isLeader());
  const releasedAt = performance.now();
  b.stop.abort();
  await b.done;
  await eventually('c leads', () => (c.manager.isLeader() ? true : undefined), 3000);
  const handover = performance.now() - releasedAt;
  assert.ok(handover < 2.2 * timings.retryPeriodMs + 600, `released lease taken over in ${handover.toFixed(0)} ms`);
  c.stop.abort();
  await c.done;
});

test('two controller processes (Node and Deno): SIGKILL of the leader hands over within the lease duration; a second SIGTERM exits at once', async () => {
  const ns = await freshNamespace(env().admin.client, 'crash');
  const flags = [...electionFlags, '--leader-elect-namespace', ns];
  const first = startController('node', ns, flags);
  const firstMetrics = await first.address('metrics');
  const status = async (address: string) => sample((await httpGet(address, '/metrics')).body, 'leader_election_master_status{name="metal3-ts-example"}');
  await eventually('node process leads', async () => ((await status(firstMetrics)) === 1 ? true : undefined));
  const second = startController('deno', ns, flags);
  const secondMetrics = await second.address('metrics');
  await eventually('deno process campaigns', async () => ((await status(secondMetrics)) === 0 ? true : undefined));

  await client.api(ConfigMapResource, ns).create(exampleMap('m', 'one'));
  await eventually('reconciled by the leader', async () => ((await reconciledValue(ns, 'm')) === 'one' ? true : undefined));
  await first.waitForLine((l) => l.msg === 'reconciled' && l['name'] === 'm', 3000);
  assert.not.ok(second.lines.some((l) => l.msg === 'reconciled'));

  const killedAt = performance.now();
  first.kill('SIGKILL');
  await first.exited;
  await eventually('deno process leads', async () => ((await status(secondMetrics)) === 1 ? true : undefined), 6000);
  const takeover = performance.now() - killedAt;
  assert.ok(takeover < timings.leaseDurationMs + 2.2 * timings.retryPeriodMs + 800, `took over after ${takeover.toFixed(0)} ms`);
  await client.api(ConfigMapResource, ns).mergePatch('m', { metadata: { labels: { [EXAMPLE]: 'two' } } });
  await eventually('reconciled by the new leader', async () => ((await reconciledValue(ns, 'm')) === 'two' ? true : undefined));
  await second.waitForLine((l) => l.msg === 'reconciled' && l['name'] === 'm', 3000);

  // A second SIGTERM does not wait for the in-flight reconcile: the process exits 1 at once.
  await client.api(ConfigMapResource, ns).create(exampleMap('stuck', 'three', { [DELAY]: '5000' }));
  await second.waitForLine((l) => l.msg === 'slow reconcile started' && l['name'] === 'stuck');
  const termAt = performance.now();
  second.kill('SIGTERM');
  await second.waitForLine((l) => l.msg.startsWith('shutdown requested'));
  second.kill('SIGTERM');
  const exit = await second.exited;
  assert.is(exit.code, 1);
  assert.ok(exit.atMs - termAt < 2000, `exited ${(exit.atMs - termAt).toFixed(0)} ms after the first SIGTERM`);
  assert.is(await reconciledValue(ns, 'stuck'), undefined);
});

test.run();
