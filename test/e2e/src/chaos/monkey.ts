// The chaos loop: after each seeded random pause it SIGKILLs one running controller process, chosen at
// random (the lab's supervisor restarts it), and at planned points in the kill sequence it stops the
// kube-apiserver or etcd for a seeded few seconds instead. Kills are rationed per lifecycle phase (the
// driver grants an allowance as each phase starts, unspent allowance carries over), so they spread over
// bring-up, upgrade, scaling and deletion instead of piling up in whichever phase is slowest; the
// outages are spread evenly over the kills, so they land in different phases too.
import type { Lab } from '../lab/lab.ts';

/** A seeded PRNG (mulberry32): the same seed replays the same pauses, victims and outage lengths. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Outage = 'apiserver' | 'etcd';

export interface ChaosPlan {
  /** SIGKILLs to deliver at least (the loop keeps going until the lifecycle ends). */
  readonly kills: number;
  readonly apiserverRestarts: number;
  readonly etcdRestarts: number;
  /** Pause between two actions, uniform in [min, max] ms. */
  readonly pauseMs: readonly [number, number];
  /** Outage length, uniform in [min, max] ms. */
  readonly outageMs: readonly [number, number];
}

/**
 * After which kill each outage happens: evenly spaced over the kills, alternating apiserver and etcd
 * (apiserver first). Pure, so the plan can be shown before the run and tested.
 */
export function outageSchedule(plan: Pick<ChaosPlan, 'kills' | 'apiserverRestarts' | 'etcdRestarts'>): { afterKill: number; what: Outage }[] {
  const kinds: Outage[] = [];
  for (let a = plan.apiserverRestarts, e = plan.etcdRestarts; a > 0 || e > 0;) {
    if (a > 0) (kinds.push('apiserver'), a--);
    if (e > 0) (kinds.push('etcd'), e--);
  }
  return kinds.map((what, i) => ({ afterKill: Math.round(((i + 1) * plan.kills) / (kinds.length + 1)), what }));
}

export interface OutageRecord {
  readonly what: Outage;
  readonly atMs: number;
  readonly downMs: number;
  /** From the stop to the restarted process answering again. */
  readonly tookMs: number;
}

export class Monkey {
  kills = 0;
  /** Kills granted so far (allow()). */
  #allowed = 0;
  readonly killsBy = new Map<string, number>();
  readonly outages: OutageRecord[] = [];
  /** Set when an outage could not be ended (the loop stops then). */
  error: string | undefined;
  readonly #plan: ChaosPlan;
  readonly #pending: { afterKill: number; what: Outage }[];
  #running = true;
  #wake: (() => void) | undefined;
  readonly #done: Promise<void>;

  constructor(lab: Lab, plan: ChaosPlan, random: () => number, log: (message: string) => void) {
    const t0 = performance.now();
    this.#plan = plan;
    const pending = (this.#pending = outageSchedule(plan));
    const between = ([min, max]: readonly [number, number]) => Math.round(min + random() * (max - min));
    this.#done = (async () => {
      while (this.#running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, between(plan.pauseMs));
          this.#wake = () => (clearTimeout(timer), resolve());
        });
        if (!this.#running) break;
        const next = pending[0];
        if (next && this.kills >= next.afterKill) {
          pending.shift();
          const downMs = between(plan.outageMs);
          const at = performance.now();
          log(`chaos: ${next.what} down for ${(downMs / 1000).toFixed(1)} s (after kill ${this.kills})`);
          try {
            await (next.what === 'apiserver' ? lab.env.restartApiServer(downMs) : lab.env.restartEtcd(downMs));
          } catch (error) {
            // The environment could not bring it back: the run cannot go on meaningfully; say so.
            this.error = `${next.what} did not come back: ${error instanceof Error ? error.message : String(error)}`;
            break;
          }
          this.outages.push({ what: next.what, atMs: at - t0, downMs, tookMs: performance.now() - at });
          continue;
        }
        if (this.kills >= this.#allowed) continue;
        const alive = [...lab.controllers.values()].filter((c) => c.process.child.exitCode === null && c.process.child.signalCode === null);
        const victim = alive[Math.floor(random() * alive.length)];
        if (!victim) continue;
        victim.process.kill('SIGKILL');
        this.kills++;
        this.killsBy.set(victim.name, (this.killsBy.get(victim.name) ?? 0) + 1);
      }
    })();
  }

  /** Grants `kills` more kills (a phase starts). */
  allow(kills: number): void {
    this.#allowed += kills;
  }

  /** Every planned kill and outage happened (the driver keeps the lifecycle going until then). */
  get complete(): boolean {
    return this.kills >= this.#plan.kills && this.#pending.length === 0;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#done;
  }
}
