// The chaos driver: a lab (five controllers from their bundles under their RBAC, real apiserver,
// real Cluster API, simulators), an invariant sampler and the chaos loop running side by side while
// the cluster lifecycle of the seed 003 cluster (KCP 3 replicas) repeats (bring-up, upgrade with node reuse, scale, deletion) until every planned kill and
// outage has happened. Seeded: the same seed replays the same pauses, victims and outage lengths (the
// cluster's own timing still varies with load). Returns the figures; never hides a violation.
import type { RestartPolicy } from '../lab/backoff.ts';
import { DEFAULT_CAPI, EXAMPLE_MANIFESTS, startLab } from '../lab/lab.ts';
import { metal3At, type Metal3Version, readManifests } from '../lab/manifests.ts';
import { CONTROL_PLANE_REPLICAS } from '../scenarios/support.ts';
import { bringUp, scale, tearDown, upgradeWithReuse } from './lifecycle.ts';
import { type ChaosPlan, Monkey, type OutageRecord, prng } from './monkey.ts';
import { Sampler } from './sampler.ts';

export interface ChaosOptions extends ChaosPlan {
  readonly seed: number;
  /** Lifecycle rounds to run at least (more run until the plan is complete). */
  readonly minRounds?: number;
  /** Rounds never exceed this (the run then reports the plan incomplete). */
  readonly maxRounds?: number;
  readonly phaseTimeoutMs?: number;
  /** Cluster API release (default DEFAULT_CAPI). */
  readonly capi?: string;
  /** The version the seed cluster's Metal3 objects are written at, every round (default: as written, v1beta1). */
  readonly metal3Version?: Metal3Version;
  readonly log?: (message: string) => void;
}

export interface ChaosReport {
  readonly seed: number;
  readonly rounds: number;
  readonly kills: number;
  readonly killsBy: Record<string, number>;
  readonly restartsBy: Record<string, number>;
  readonly exitCodesBy: Record<string, Record<string, number>>;
  readonly outages: readonly OutageRecord[];
  readonly samples: number;
  readonly failedReads: number;
  /** Invariant violations (with how often they were seen), moved hosts and leftovers. */
  readonly violations: readonly string[];
  /** What only the (simulated) IP address manager failed to release: reported, not ours to fix. */
  readonly ipamLeftovers: readonly string[];
  /** Phase → convergence time per round, in ms. */
  readonly phases: Record<string, number[]>;
  readonly planComplete: boolean;
  /** The phase that did not converge within its timeout, if any. */
  readonly failure?: string;
  readonly wallMs: number;
}

/**
 * Leases short enough for the kill rate: a SIGKILLed leader's successor waits out its Lease, and at
 * the default 15 s a controller killed every ~15 s would hardly ever lead.
 */
const CHAOS_LEASE = ['--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '1s'];
/** Restarts: 250 ms doubling to 4 s, reset after 10 s of running. */
export const CHAOS_POLICY: RestartPolicy = { initialMs: 250, maxMs: 4_000, resetAfterMs: 10_000 };

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => {});
  const t0 = performance.now();
  const capi = o.capi ?? DEFAULT_CAPI;
  const manifests = metal3At(readManifests(EXAMPLE_MANIFESTS), o.metal3Version);
  const lab = await startLab({
    hosts: CONTROL_PLANE_REPLICAS + 3,
    controlPlaneHosts: CONTROL_PLANE_REPLICAS,
    capi,
    manifests: EXAMPLE_MANIFESTS,
    metal3Version: o.metal3Version,
    restartPolicy: CHAOS_POLICY,
    args: { cluster: CHAOS_LEASE, machine: CHAOS_LEASE, template: CHAOS_LEASE, dataclaim: CHAOS_LEASE, data: CHAOS_LEASE },
    log,
  });
  const violations: string[] = [];
  const ipamLeftovers: string[] = [];
  const phases: Record<string, number[]> = {};
  const plannedRounds = Math.max(1, o.minRounds ?? 1);
  // Each phase of each planned round gets an equal share of the kills.
  const perPhase = Math.ceil(o.kills / (4 * plannedRounds));
  const timed = async <T>(phase: string, run: () => Promise<T>): Promise<T> => {
    monkey.allow(perPhase);
    const t = performance.now();
    const out = await run();
    (phases[phase] ??= []).push(Math.round(performance.now() - t));
    log(`chaos: ${phase} converged in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return out;
  };
  const sampler = new Sampler(lab.client, lab.namespace);
  const monkey = new Monkey(lab, o, prng(o.seed), log);
  const timeoutMs = o.phaseTimeoutMs ?? 300_000;
  let rounds = 0;
  let failure: string | undefined;
  try {
    while (!monkey.error && (rounds < plannedRounds || (!monkey.complete && rounds < (o.maxRounds ?? 10)))) {
      const round = rounds++;
      log(`chaos: round ${round} (${monkey.kills} kills so far)`);
      await timed('bring-up', () => bringUp(lab, round, manifests, timeoutMs));
      violations.push(...(await timed('upgrade with node reuse', () => upgradeWithReuse(lab, round, timeoutMs))));
      await timed('scale down and up', () => scale(lab, round, timeoutMs));
      const left = await timed('deletion', () => tearDown(lab, round, manifests, timeoutMs));
      violations.push(...left.ours);
      ipamLeftovers.push(...left.ipam);
      if (left.ours.length > 0) break;
    }
  } catch (error) {
    // A phase that did not converge: reported (with the figures so far), never thrown past the lab.
    failure = error instanceof Error ? error.message : String(error);
  }
  await monkey.stop();
  const sampled = await sampler.stop();
  for (const [v, { count, firstMs }] of sampled.violations) violations.push(`${v} (seen ${count}×, first at ${(firstMs / 1000).toFixed(1)} s)`);
  const controllers = [...lab.controllers.values()];
  const report: ChaosReport = {
    seed: o.seed,
    rounds,
    kills: monkey.kills,
    killsBy: Object.fromEntries(monkey.killsBy),
    restartsBy: Object.fromEntries(controllers.map((c) => [c.name, c.restarts])),
    exitCodesBy: Object.fromEntries(
      controllers.map((
        c,
      ) => [c.name, c.exits.reduce<Record<string, number>>((m, e) => ((m[String(e.code ?? e.signal)] = (m[String(e.code ?? e.signal)] ?? 0) + 1), m), {})]),
    ),
    outages: monkey.outages,
    samples: sampled.samples,
    failedReads: sampled.failedReads,
    violations,
    ipamLeftovers,
    phases,
    planComplete: monkey.complete,
    ...(failure || monkey.error ? { failure: [monkey.error, failure].filter(Boolean).join('; ') } : {}),
    wallMs: Math.round(performance.now() - t0),
  };
  await lab.stop();
  return report;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The report as printed by the script and the test. */
export function describeReport(r: ChaosReport): string[] {
  return [
    `seed ${r.seed} (replay: CHAOS_SEED=${r.seed}), ${r.rounds} round(s), wall ${s(r.wallMs)}${r.planComplete ? '' : ' — PLAN INCOMPLETE'}`,
    `kills ${r.kills} (${Object.entries(r.killsBy).map(([n, k]) => `${n} ${k}`).join(', ')})`,
    `restarts ${Object.values(r.restartsBy).reduce((a, b) => a + b, 0)} (${
      Object.entries(r.restartsBy).map(([n, k]) => `${n} ${k}`).join(', ')
    }); exits by code/signal: ${Object.entries(r.exitCodesBy).map(([n, m]) => `${n} ${JSON.stringify(m)}`).join(', ')}`,
    `outages ${r.outages.length}: ${r.outages.map((x) => `${x.what} down ${s(x.downMs)} at ${s(x.atMs)} (back after ${s(x.tookMs)})`).join('; ') || 'none'}`,
    `samples ${r.samples} (failed reads during outages ${r.failedReads}), violations ${r.violations.length}`,
    ...Object.entries(r.phases).map(([phase, ms]) => `  ${phase}: ${ms.map(s).join(', ')} (median ${s(median(ms))})`),
    ...r.violations.map((v) => `  VIOLATION ${v}`),
    ...r.ipamLeftovers.map((v) => `  IPAM simulator left ${v}`),
    ...(r.failure ? [`  FAILED ${r.failure.slice(0, 3000)}`] : []),
  ];
}
