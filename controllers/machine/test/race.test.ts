// The claim race across processes (issue: "two controller processes with leader election off and
// concurrency 10 each, 50 Metal3Machines and 30 available hosts"): two bundled controllers under
// deploy/rbac.yaml race for the hosts with no process-wide mutex. Sampled every ~100 ms while it
// settles, no Metal3Machine is ever the consumer of two hosts and every consumer exists; exactly 30
// hosts end up claimed, the 20 machines left over wait with AssociateBMH False/AssociateBMHFailed/
// Info "No available host found…"; once 20 more hosts appear, all 50 hosts are provisioned for 50
// distinct machines within seconds (woken by the hosts' events, not the 30 s safety net).
// No workload cluster: "provisioned" is the host's provisioning state. The BMO simulator is instant.
// Every sample is checked; violations are collected with when they were first and last seen, and the
// test fails at its end with all of them, so one run shows whether a violation heals and what the
// timings were. The summary line also gives each process's requests, 409s and rate-limiter wait.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { type ControllerProcess, httpGet } from '@metal3-ts/test/harness/controller-process';
import { HOST_ANNOTATION } from '../src/names.ts';
import {
  doubleClaims,
  listHosts,
  listMetal3Machines,
  metricSum,
  processTestScene,
  rbacUser,
  reconcileTotal,
  startController,
  stateOf,
  waitReady,
} from './process-support.ts';
import { consumers, createHosts, createMachine, sleep } from './support.ts';

const FIRST_HOSTS = 30;
const MORE_HOSTS = 20;
const MACHINES = 50;
const SAMPLE_MS = 100;
/** The issue's "within seconds", with room for a loaded 2-core CI machine. */
const PROVISION_BUDGET_MS = 20_000;

const pad = (i: number) => String(i).padStart(2, '0');
const hostNames = (from: number, count: number) => Array.from({ length: count }, (_, i) => `host-${pad(from + i)}`);
const machineNames = Array.from({ length: MACHINES }, (_, i) => `m-${pad(i)}`);

const test = suite('two controller processes race for 30 hosts with 50 Metal3Machines');
const scene = processTestScene(test, { prefix: 'machine-race', world: { workload: false }, hosts: hostNames(0, FIRST_HOSTS), hostsTimeoutMs: 60_000 });

const processes: ControllerProcess[] = [];

interface Sample {
  readonly atMs: number;
  readonly hosts: readonly BareMetalHost[];
  readonly claimed: number;
}

/** Every invariant violation seen, with the first and last sample it was seen in. */
const violations = new Map<string, { firstMs: number; lastMs: number; samples: number }>();

function violated(what: string, atMs: number): void {
  const seen = violations.get(what);
  if (seen) violations.set(what, { ...seen, lastMs: atMs, samples: seen.samples + 1 });
  else violations.set(what, { firstMs: atMs, lastMs: atMs, samples: 1 });
}

/**
 * One listing of the hosts with the invariants checked (every sample counts): no Metal3Machine is
 * the consumer of two hosts, every consumer is one of our Metal3Machines, never more claims than
 * machines allow. Violations are recorded (and the test fails at its end with all of them), so one
 * run also shows whether a violation heals and how long the rest takes.
 */
async function sample(start: number, phase: string): Promise<Sample> {
  const hosts = await listHosts(scene.client, scene.ns);
  const atMs = performance.now() - start;
  for (const double of doubleClaims(hosts)) violated(`${phase}: ${double}`, atMs);
  const claimed = hosts.filter((h) => h.spec?.consumerRef);
  for (const h of claimed) {
    const ref = h.spec!.consumerRef!;
    if (ref.kind !== 'Metal3Machine' || ref.namespace !== scene.ns || !machineNames.includes(ref.name ?? '')) {
      violated(`${phase}: ${h.metadata.name} consumed by ${JSON.stringify(ref)}`, atMs);
    }
  }
  return { atMs, hosts, claimed: claimed.length };
}

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : (ms / 1000).toFixed(2));
const isWaitingForHost = (m: Readonly<Metal3Machine>): boolean => {
  const c = getCondition(m, 'AssociateBMH');
  return c?.status === 'False' && c.reason === 'AssociateBMHFailed' && c.severity === 'Info' && !!c.message?.includes('No available host found');
};

test('exactly 30 of 50 machines get a host, never a double claim; the other 20 wait with a clear condition; all 50 provisioned within seconds of 20 more hosts', async () => {
  const kubeconfigs = [await rbacUser(scene.env, scene.ns, 'race-a'), await rbacUser(scene.env, scene.ns, 'race-b')];
  for (const kubeconfig of kubeconfigs) {
    processes.push(startController(scene.bundle.path, { kubeconfig, namespace: scene.ns, leaderElect: false, concurrency: 10 }));
  }
  await Promise.all(processes.map((p) => waitReady(p)));
  const findings: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) findings.push(what);
  };

  // 50 Machine + Metal3Machine pairs at once.
  const start = performance.now();
  await Promise.all(machineNames.map((name) => createMachine(scene.client, scene.ns, name)));
  const createdMs = performance.now() - start;

  // Phase 1: sample until every host is claimed and every machine without a host waits for one
  // with the condition, then keep sampling 3 s.
  let samples = 0;
  let claimedAtMs: number | undefined;
  let settledAtMs: number | undefined;
  let last: Sample;
  for (;;) {
    last = await sample(start, 'with 30 hosts');
    samples++;
    if (last.claimed === FIRST_HOSTS) claimedAtMs ??= last.atMs;
    if (claimedAtMs !== undefined && settledAtMs === undefined) {
      const holders = await consumers(scene.client, scene.ns);
      const m3ms = await listMetal3Machines(scene.client, scene.ns);
      if (m3ms.every((m) => holders.has(m.metadata.name ?? '') || isWaitingForHost(m))) settledAtMs = last.atMs;
    }
    if (settledAtMs !== undefined && last.atMs > settledAtMs + 3_000) break;
    assert.ok(last.atMs < 60_000, `not settled after 60 s: ${last.claimed} hosts claimed`);
    await sleep(SAMPLE_MS);
  }
  const phase1Samples = samples;
  check(last.claimed === FIRST_HOSTS, `${last.claimed} hosts claimed, not exactly 30`);
  const holders = await consumers(scene.client, scene.ns);
  check(
    holders.size === FIRST_HOSTS,
    `${holders.size} distinct Metal3Machines hold the 30 claimed hosts, not 30: ${
      [...holders].filter(([, h]) => h.length > 1).map(([m, h]) => `${m} holds ${h.join(', ')}`).join('; ')
    }`,
  );

  // The holders record their host; the others have none and say why they wait.
  const m3ms = await listMetal3Machines(scene.client, scene.ns);
  for (const m of m3ms) {
    const name = m.metadata.name ?? '';
    const held = holders.get(name);
    const annotation = m.metadata.annotations?.[HOST_ANNOTATION];
    if (held) {
      check(held.length === 1 && annotation === `${scene.ns}/${held[0]}`, `${name}: holds ${held.join(', ')} but its annotation names ${annotation}`);
      continue;
    }
    check(annotation === undefined, `${name}: holds no host but its annotation names ${annotation}`);
    const c = getCondition(m, 'AssociateBMH');
    check(
      `${c?.status}/${c?.reason}/${c?.severity}` === 'False/AssociateBMHFailed/Info' && !!c?.message?.includes('No available host found'),
      `${name}: AssociateBMH ${JSON.stringify(c)}`,
    );
  }
  const waitingCount = m3ms.filter((m) => !holders.has(m.metadata.name ?? '')).length;
  check(waitingCount === MACHINES - FIRST_HOSTS, `${waitingCount} machines wait for a host, not 20`);
  for (const [what, v] of violations) {
    const hosts = await listHosts(scene.client, scene.ns);
    const names = what.match(/host-\d+/g) ?? [];
    const states = names.map((n) => `${n} ${stateOf(hosts.find((h) => h.metadata.name === n)!)}`).join(', ');
    findings.push(
      `${what}: first seen ${seconds(v.firstMs)} s after the machines were created, last ${seconds(v.lastMs)} s (${v.samples} samples; now ${states})`,
    );
  }
  violations.clear();

  // Phase 2: 20 more hosts; the waiting machines get them and all 50 hosts are provisioned.
  const more = performance.now();
  await Promise.all(hostNames(FIRST_HOSTS, MORE_HOSTS).map((name) => createHosts(scene.client, scene.ns, [name])));
  const moreCreatedMs = performance.now() - more;
  let doneMs: number | undefined;
  for (;;) {
    last = await sample(more, 'with 50 hosts');
    samples++;
    if (last.claimed === FIRST_HOSTS + MORE_HOSTS && last.hosts.every((h) => stateOf(h) === 'provisioned')) {
      doneMs = last.atMs;
      break;
    }
    if (last.atMs > 60_000) break;
    await sleep(SAMPLE_MS);
  }
  const provisioned = last.hosts.filter((h) => stateOf(h) === 'provisioned').length;
  check(
    doneMs !== undefined && doneMs <= PROVISION_BUDGET_MS,
    `all 50 hosts claimed and provisioned after ${seconds(doneMs ?? last.atMs)} s (budget ${
      seconds(PROVISION_BUDGET_MS)
    } s; now ${last.claimed} claimed, ${provisioned} provisioned)`,
  );
  const finalHolders = await consumers(scene.client, scene.ns);
  check(
    finalHolders.size === MACHINES,
    `${finalHolders.size} distinct consumers of the 50 hosts, not 50 (without a host: ${
      machineNames.filter((n) => !finalHolders.has(n)).join(', ') || 'none'
    })`,
  );
  for (const [what, v] of violations) {
    findings.push(`${what}: first seen ${seconds(v.firstMs)} s after the 20 hosts were created, last ${seconds(v.lastMs)} s (${v.samples} samples)`);
  }

  // Both processes took part, neither logged an error or died.
  const totals: number[] = [];
  const requests: string[] = [];
  for (const p of processes) {
    check(p.child.exitCode === null, `${p.runtime} process exited (log tail:\n${p.tail()})`);
    const metrics = (await httpGet(await p.address('metrics'), '/metrics')).body;
    totals.push(reconcileTotal(metrics));
    requests.push(
      `${metricSum(metrics, 'rest_client_requests_total')} (${metricSum(metrics, 'rest_client_requests_total', 'code="409"')} conflicts, ` +
        `${metricSum(metrics, 'rest_client_rate_limiter_duration_seconds_sum').toFixed(0)} s waited in the client rate limiter)`,
    );
    const errors = p.lines.filter((l) => l.level === 'error');
    check(errors.length === 0, `errors logged: ${errors.slice(0, 3).map((l) => JSON.stringify(l)).join('\n')}`);
  }
  check(totals.every((t) => t > 0), `both processes reconciled: ${totals.join(', ')}`);

  console.log(
    `race: ${MACHINES} pairs created in ${seconds(createdMs)} s; 30 hosts claimed of 50 machines ${seconds(claimedAtMs)} s after the first create, settled at ${
      seconds(settledAtMs)
    } s; ` +
      `${samples} samples (${phase1Samples} before more hosts); 20 more hosts created in ${seconds(moreCreatedMs)} s, all 50 provisioned ${
        seconds(doneMs)
      } s after the first of them was created; ` +
      `per process: ${totals.join(', ')} reconciles, requests ${requests.join(', ')}; findings: ${findings.length}`,
  );
  assert.equal(findings, [], `the race contract is broken:\n${findings.join('\n')}`);
});

test.run();
