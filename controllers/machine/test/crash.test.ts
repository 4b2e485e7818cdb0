// Crash safety (issue: "the controller killed at random points during association and deletion (at
// least 20 runs) never leaks a claimed host or a finalizer, and converges after restart"). Each round
// runs the bundled controller as one process (leader election off, deploy/rbac.yaml), creates 3
// Machine + Metal3Machine pairs for the 3 hosts and, once the real Cluster API adopted them, SIGKILLs
// the process after a random delay; a new
// process must then associate every machine with exactly one host and provision it, with no host
// naming a consumer that does not exist. Then the machines are deleted and the process is killed
// again at a random point (BMO deprovisions in a few hundred ms, so kills land before, during and
// after deprovisioning); a new process must remove every Metal3Machine (no finalizer left behind)
// and hand every host back (no consumerRef, no owner reference, available). That process serves the
// next round. The kill delays come from a seeded PRNG: the seed is printed (CRASH_SEED replays it;
// CRASH_ROUNDS changes the number of rounds). Hosts, world and namespace are shared by the rounds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import process from 'node:process';
import { MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { ControllerProcess } from '@metal3-ts/test/harness/controller-process';
import { HOST_ANNOTATION } from '../src/names.ts';
import { doubleClaims, killHard, listHosts, listMetal3Machines, prng, processTestScene, startController, stateOf, waitReady } from './process-support.ts';
import { createMachine, eventually, sleep } from './support.ts';

const ROUNDS = Number(process.env['CRASH_ROUNDS'] ?? 20);
const SEED = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const HOSTS = ['host-0', 'host-1', 'host-2'];
/** Kill delays: association (claim, deployment, provisioning 250 ms) and deletion (deprovisioning 400 ms, release, finalizer). */
const ASSOCIATE_KILL_MAX_MS = 700;
const DELETE_KILL_MAX_MS = 900;
const CONVERGE_MS = 30_000;

const test = suite('the Metal3Machine controller killed during association and deletion');
const scene = processTestScene(test, {
  prefix: 'machine-crash',
  user: 'crash',
  world: { workload: false, bmo: { speed: 'instant', timings: { provisioningMs: 250, deprovisioningMs: 400, deprovisioningWithoutCleaningMs: 400 } } },
  hosts: HOSTS,
  hostsTimeoutMs: CONVERGE_MS,
});

const consumerOf = (h: Readonly<BareMetalHost>): string | undefined => h.spec?.consumerRef?.name;

/** Where association stood for `name` when the process died. */
function associationStage(name: string, m3ms: readonly Metal3Machine[], hosts: readonly BareMetalHost[]): string {
  const m = m3ms.find((x) => x.metadata.name === name);
  if (!m) return 'no Metal3Machine';
  const held = hosts.filter((h) => consumerOf(h) === name);
  if (held.length === 0) return m.metadata.finalizers?.length ? 'finalizer, no host' : 'untouched';
  const host = held[0]!;
  if (!m.metadata.annotations?.[HOST_ANNOTATION]) return 'host claimed, not recorded';
  if (!host.spec?.image) return 'recorded, no image';
  return stateOf(host) === 'provisioned' ? 'provisioned' : 'provisioning';
}

/** Where deletion stood for `name` when the process died. */
function deletionStage(name: string, m3ms: readonly Metal3Machine[], hosts: readonly BareMetalHost[]): string {
  const exists = m3ms.some((x) => x.metadata.name === name);
  const host = hosts.find((h) => consumerOf(h) === name);
  if (!host) return exists ? 'host released, finalizer left' : 'gone';
  if (host.spec?.image) return 'deployment still on host';
  const state = stateOf(host);
  if (state === 'deprovisioning') return 'deprovisioning';
  return state === 'provisioned' ? 'image removed, not yet deprovisioning' : `deprovisioned (${state}), still claimed`;
}

const tally = (into: Map<string, number>, stages: readonly string[]) => {
  for (const s of stages) into.set(s, (into.get(s) ?? 0) + 1);
};
const show = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([s, n]) => `${s} ${n}`).join(', ');

test(`${ROUNDS} rounds: killed during association and during deletion, never a leaked host or finalizer, converges after restart`, async () => {
  const random = prng(SEED);
  const tag = `seed ${SEED}`;
  console.log(`crash: seed ${SEED} (replay with CRASH_SEED=${SEED})`);
  const associateStages = new Map<string, number>();
  const deleteStages = new Map<string, number>();
  const violations: string[] = [];
  const problems: string[] = [];
  const startMs: number[] = [];
  const convergeMs: number[] = [];
  const began = performance.now();

  /** One look at the world during convergence: a Metal3Machine never holds two hosts. */
  const watchInvariants = (round: number, hosts: readonly BareMetalHost[]) => {
    for (const double of doubleClaims(hosts)) violations.push(`round ${round}: ${double}`);
  };
  const start = async (): Promise<ControllerProcess> => {
    const t = performance.now();
    const p = startController(scene.bundle.path, { kubeconfig: scene.kubeconfig, namespace: scene.ns, leaderElect: false, concurrency: 3 });
    await waitReady(p);
    startMs.push(performance.now() - t);
    return p;
  };
  const crash = async (p: ControllerProcess): Promise<void> => {
    await killHard(p);
    assert.is(p.child.signalCode, 'SIGKILL', `${tag}: the process died of SIGKILL (log tail:\n${p.tail()})`);
    problems.push(...p.lines.filter((l) => l.level === 'error').map((l) => JSON.stringify(l)));
  };

  let current = await start();
  for (let round = 0; round < ROUNDS; round++) {
    const names = HOSTS.map((_, i) => `r${String(round).padStart(2, '0')}-m${i}`);

    // Association, killed after a random delay.
    const associateKill = Math.floor(random() * ASSOCIATE_KILL_MAX_MS);
    await Promise.all(names.map((name) => createMachine(scene.client, scene.ns, name)));
    // The kill window opens once Cluster API has adopted the pairs (a Metal3Machine waits for its
    // owner Machine, M-9): under load that takes longer than the window, which would then only ever
    // find untouched machines.
    await eventually(`${tag}, round ${round}: the Metal3Machines adopted by their Machines`, async () => {
      const m3ms = (await listMetal3Machines(scene.client, scene.ns)).filter((m) => names.includes(m.metadata.name ?? ''));
      return m3ms.length === names.length && m3ms.every((m) => m.metadata.ownerReferences?.some((o) => o.kind === 'Machine')) ? true : undefined;
    }, CONVERGE_MS);
    await sleep(associateKill);
    await crash(current);
    {
      const [m3ms, hosts] = await Promise.all([listMetal3Machines(scene.client, scene.ns), listHosts(scene.client, scene.ns)]);
      tally(associateStages, names.map((n) => associationStage(n, m3ms, hosts)));
      watchInvariants(round, hosts);
    }
    let t = performance.now();
    current = await start();
    await eventually(`${tag}, round ${round} (association killed at ${associateKill} ms): every machine holds exactly one provisioned host`, async () => {
      const [m3ms, hosts] = await Promise.all([listMetal3Machines(scene.client, scene.ns), listHosts(scene.client, scene.ns)]);
      watchInvariants(round, hosts);
      const existing = new Set(m3ms.map((m) => m.metadata.name ?? ''));
      const leaked = hosts.filter((h) => consumerOf(h) && !existing.has(consumerOf(h)!));
      if (leaked.length > 0) violations.push(`round ${round}: ${leaked.map((h) => `${h.metadata.name} consumed by missing ${consumerOf(h)}`).join(', ')}`);
      const ok = names.every((name) => {
        const held = hosts.filter((h) => consumerOf(h) === name);
        const m = m3ms.find((x) => x.metadata.name === name);
        return held.length === 1 && stateOf(held[0]!) === 'provisioned' &&
          m?.metadata.annotations?.[HOST_ANNOTATION] === `${scene.ns}/${held[0]!.metadata.name}`;
      });
      return ok && m3ms.length === names.length ? true : undefined;
    }, CONVERGE_MS);
    convergeMs.push(performance.now() - t);

    // Deletion, killed after a random delay.
    const deleteKill = Math.floor(random() * DELETE_KILL_MAX_MS);
    await Promise.all(
      names.flatMap((name) => [scene.client.api(Metal3MachineResource, scene.ns).delete(name), scene.client.api(MachineResource, scene.ns).delete(name)]),
    );
    await sleep(deleteKill);
    await crash(current);
    {
      const [m3ms, hosts] = await Promise.all([listMetal3Machines(scene.client, scene.ns), listHosts(scene.client, scene.ns)]);
      tally(deleteStages, names.map((n) => deletionStage(n, m3ms, hosts)));
      watchInvariants(round, hosts);
    }
    t = performance.now();
    current = await start();
    await eventually(`${tag}, round ${round} (deletion killed at ${deleteKill} ms): no Metal3Machine left, every host handed back and available`, async () => {
      const [m3ms, hosts] = await Promise.all([listMetal3Machines(scene.client, scene.ns), listHosts(scene.client, scene.ns)]);
      watchInvariants(round, hosts);
      if (m3ms.length > 0) return undefined;
      const machines = (await scene.client.api(MachineResource, scene.ns).list()).items;
      if (machines.length > 0) return undefined;
      return hosts.every((h) =>
          !h.spec?.consumerRef && !h.metadata.ownerReferences?.some((o) => o.kind === 'Metal3Machine') && stateOf(h) === 'available' && !h.spec?.image
        )
        ? true
        : undefined;
    }, CONVERGE_MS);
    convergeMs.push(performance.now() - t);
    assert.equal(violations, [], `${tag}: invariants broken`);
  }

  // The last process stops cleanly.
  current.kill('SIGTERM');
  const exit = await current.exited;
  assert.is(exit.code, 0, `exit code after SIGTERM (log tail:\n${current.tail()})`);
  problems.push(...current.lines.filter((l) => l.level === 'error').map((l) => JSON.stringify(l)));

  const wall = (performance.now() - began) / 1000;
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(
    `crash: ${ROUNDS} rounds (${ROUNDS * 2} kills, seed ${SEED}) in ${wall.toFixed(1)} s; process start to ready avg ${
      (avg(startMs) / 1000).toFixed(2)
    } s, max ${(Math.max(...startMs) / 1000).toFixed(2)} s; ` +
      `convergence after restart avg ${(avg(convergeMs) / 1000).toFixed(2)} s, max ${(Math.max(...convergeMs) / 1000).toFixed(2)} s; ` +
      `killed during association at: ${show(associateStages)}; during deletion at: ${show(deleteStages)}; errors logged: ${problems.length}`,
  );
  assert.equal(violations, [], `${tag}: invariants broken`);
  assert.equal(problems, [], `${tag}: no error logged`);
});

test.run();
