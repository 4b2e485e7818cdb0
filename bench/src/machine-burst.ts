// Performance S1, S2 and S6 for the Metal3Machine controller (research A10, A12, C5).
//
// S1, burst provisioning: N Machine + Metal3Machine pairs created at once over N available hosts, at
// instant BMO and kubelet speed; time until every Metal3Machine is ready with a providerID, per
// machine p50/p99, requests and reconciles per machine, conflicts; once without a client limit and
// once under CAPM3's 20/30. S6: the same machines deleted, until every host is available again.
// Late kubelets (E-36): Nodes registering some time after provisioning, and how long each waits for
// its provider ID (CAPM3 polls every 30 s).
// S2, large inventory: the same N machines over M hosts in the namespace, for a small and a large M:
// the association time, ours and the reference model's (reference-association.ts), and host bytes
// listed per association. The reference figures come from that model of CAPM3's association step
// (global lock, uncached LIST, patch) against the same apiserver and hosts, not from running CAPM3;
// the default-flag rows (20/30) also carry issue 20's goal from its measurement of the real CAPM3.
import process from 'node:process';
import type { Client } from '@metal3-ts/generated';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { benchClusterApi, clusterApiCpuSeconds } from './cluster-api.ts';
import { type Limit, startBenchController } from './machine-controller.ts';
import { createMachines, deleteMachines, type MachineScene, machineScene, type Stamps } from './machine-scene.ts';
import { referenceAssociate, releaseReferenceClaims } from './reference-association.ts';
import { percentile, type Row } from './report.ts';
import { tallyRows, type WriteTally } from './write-tally.ts';

const CAPM3_LIMIT: NonNullable<Limit> = { qps: 20, burst: 30 };
/**
 * Real CAPM3 v1.12.7 with 100 machines, seconds: issue 20's table, measured by the issue beside ours in
 * a scene with a simulated Cluster API (this benchmark runs the real one, whose adoption is slower), not
 * by this benchmark. The goal is each default-flag figure beaten by 1.3 ×; the rows carry it only at
 * 100 machines, the size it was measured at. `burstUnlimited` is its burst at 1000 qps: the ratio of
 * the two says what its client limit cost it, whatever the scene.
 */
const CAPM3_DEFAULT_FLAGS = { burstReady: 62.4, burstClaimed: 35.9, claimed150Hosts: 28.6, burstUnlimited: 38.4 } as const;
const goalAt100 = (machines: number, capm3: number): Pick<Row, 'reference'> =>
  machines === 100 ? { reference: { label: `goal: CAPM3 v1.12.7's ${capm3} s (issue 20) ÷ 1.3`, value: capm3 / 1.3 } } : {};
/** The writes issue 20 counts per machine: the host, its BMC Secret, the Metal3Machine. */
const MACHINE_WRITES = ['baremetalhosts', 'secrets', 'metal3machines'];
const READS = new Set(['get', 'list', 'watch']);

interface Burst {
  /** Seconds from the first create until every machine is claimed / ready / gone again. */
  readonly claimedSeconds: number;
  readonly readySeconds: number;
  readonly deletedSeconds: number;
  /** Per machine: seconds from its creation to its Machine owning it (Cluster API's step). */
  readonly adoptLatencies: readonly number[];
  /** Per machine: seconds from its creation to its host claimed / to ready / to its Node carrying the provider ID. */
  readonly claimLatencies: readonly number[];
  readonly readyLatencies: readonly number[];
  readonly nodeIdFromCreate: readonly number[];
  /** Seconds from the first create until every machine's Node carries its provider ID. */
  readonly nodeIdSeconds: number;
  /** Per machine: seconds from its host claimed to provisioned, and from provisioned to its Node carrying the provider ID. */
  readonly provisionLatencies: readonly number[];
  readonly nodeLatencies: readonly number[];
  /** Per machine: seconds from its Node registering (first seen) to the Node carrying the provider ID. */
  readonly nodeIdLatencies: readonly number[];
  readonly reads: number;
  /** Host, Secret and Metal3Machine writes (issue 20's count). */
  readonly writes: number;
  /** The resource the controller sent the most reads and writes of: under a per-kind limit, the bucket that sets the pace. */
  readonly busiestKind: { readonly resource: string; readonly requests: number };
  /** Seconds the requests spent waiting for the client-side limit, summed over every request until all were ready. */
  readonly throttledSeconds: number;
  /** Every other write but events: the workload Nodes' provider IDs (P-11), data claims. */
  readonly otherWrites: number;
  /** Event creations and updates, counted apart: they are never on a reconcile's way. */
  readonly events: number;
  /** Every write by shape (events included), from the first create until all were ready. */
  readonly tally: WriteTally;
  readonly hostLists: number;
  readonly conflicts: number;
  readonly reconciles: number;
  /** CPU seconds from the first create until all were ready: the real Cluster API managers; this process (controller, simulators, observer). */
  readonly capiCpuSeconds: number;
  readonly ownCpuSeconds: number;
}

/**
 * How the machines meet the controller: `running`, created while it runs (S1: creation → ready is
 * what a user waits); `queued`, created and adopted by their Machines before it starts, so that all
 * are waiting together, as in the reference model (the association comparison).
 */
type Arrival = 'running' | 'queued';

/** Provisions `machines` machines in `scene` with our controller, then deletes them; hosts end available again. */
async function burst(env: TestEnv, admin: Client, scene: MachineScene, prefix: string, machines: number, limit: Limit, arrival: Arrival): Promise<Burst> {
  const timeout = 120_000 + machines * 1_000;
  const allAvailable = () => scene.availableHosts() === scene.hosts;
  await scene.until(`all ${scene.hosts} hosts available`, allAvailable, timeout);
  let createdAt = new Map<string, number>();
  if (arrival === 'queued') {
    createdAt = await createMachines(admin, scene, prefix, machines);
    await scene.until(`${machines} machines adopted`, () => scene.adoptedMachines() === machines, timeout);
  }
  const controller = await startBenchController(env, scene.namespace, limit);
  controller.counter.reset(); // the cache sync's one list per resource is not part of any machine's cost
  controller.writeTally.clear();
  const capi = await benchClusterApi(env);
  try {
    const cpu0 = { capi: clusterApiCpuSeconds(capi), own: process.cpuUsage() };
    const t0 = scene.now();
    if (arrival === 'running') createdAt = await createMachines(admin, scene, prefix, machines);
    const names = [...createdAt.keys()];
    const since = (name: string) => (arrival === 'queued' ? t0 : (createdAt.get(name) ?? t0));
    await scene.until(
      `${machines} machines ready, their Nodes with provider IDs`,
      () => names.every((name) => scene.readyAt.has(name) && scene.nodeIdAt.has(name)),
      timeout,
    );
    const capiCpuSeconds = clusterApiCpuSeconds(capi) - cpu0.capi;
    const own = process.cpuUsage(cpu0.own);
    const between = (from: (name: string) => number, to: Stamps) => names.map((name) => ((to.get(name) ?? 0) - from(name)) / 1000);
    const latencies = (stamps: Stamps) => between(since, stamps);
    const last = (stamps: Stamps) => (Math.max(...names.map((name) => stamps.get(name) ?? 0)) - t0) / 1000;
    const counter = controller.counter;
    const reads = counter.count({ verb: 'get' }) + counter.count({ verb: 'list' });
    const events = counter.count({ resource: 'events' });
    const written = (resource: string) => counter.snapshot().filter((c) => c.resource === resource && !READS.has(c.verb)).reduce((n, c) => n + c.count, 0);
    const result = {
      claimedSeconds: last(scene.claimedAt),
      readySeconds: last(scene.readyAt),
      nodeIdSeconds: last(scene.nodeIdAt),
      adoptLatencies: latencies(scene.adoptedAt),
      claimLatencies: latencies(scene.claimedAt),
      readyLatencies: latencies(scene.readyAt),
      nodeIdFromCreate: latencies(scene.nodeIdAt),
      provisionLatencies: between((name) => scene.claimedAt.get(name) ?? 0, scene.provisionedAt),
      nodeLatencies: between((name) => scene.provisionedAt.get(name) ?? 0, scene.nodeIdAt),
      nodeIdLatencies: names.map((name) => (scene.nodeIdLatency.get(name) ?? 0) / 1000),
      reads,
      writes: MACHINE_WRITES.reduce((n, resource) => n + written(resource), 0),
      otherWrites: counter.count() - reads - counter.count({ verb: 'watch' }) - events - MACHINE_WRITES.reduce((n, resource) => n + written(resource), 0),
      events,
      tally: new Map(controller.writeTally),
      busiestKind: busiestKind(counter.snapshot()),
      throttledSeconds: limiterWaitSeconds(controller.registry.render()),
      hostLists: counter.count({ verb: 'list', resource: 'baremetalhosts' }),
      conflicts: counter.count({ code: 409 }),
      reconciles: controller.reconciles(),
      capiCpuSeconds,
      ownCpuSeconds: (own.user + own.system) / 1e6,
    };
    const d0 = scene.now();
    await deleteMachines(admin, scene, names, timeout);
    return { ...result, deletedSeconds: (scene.now() - d0) / 1000 };
  } finally {
    await controller.stop();
  }
}

/**
 * The management resource with the most requests (watches aside). Nodes are left out: each workload
 * cluster has its own client, so their requests spread over as many budgets as there are clusters.
 */
function busiestKind(counts: readonly { verb: string; resource: string; count: number }[]): Burst['busiestKind'] {
  const byResource = new Map<string, number>();
  for (const c of counts) if (c.verb !== 'watch' && c.resource !== 'nodes') byResource.set(c.resource, (byResource.get(c.resource) ?? 0) + c.count);
  const [resource, requests] = [...byResource].sort((a, b) => b[1] - a[1])[0] ?? ['none', 0];
  return { resource, requests };
}

/** The sum of rest_client_rate_limiter_duration_seconds over its series (management and workload hosts). */
function limiterWaitSeconds(metrics: string): number {
  const sums = metrics.split('\n').filter((line) => line.startsWith('rest_client_rate_limiter_duration_seconds_sum'));
  return sums.reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** S1 and S6: `machines` machines over as many hosts, without a client limit and under CAPM3's. */
export async function benchMachineBurst(env: TestEnv, admin: Client, machines: number): Promise<Row[]> {
  const scene = await machineScene(env, admin, 'bench-burst', machines);
  try {
    const free = await burst(env, admin, scene, 'free', machines, undefined, 'running');
    const limited = await burst(env, admin, scene, 'cap', machines, CAPM3_LIMIT, 'running');
    const perMachine = (n: number) => n / machines;
    const requests = limited.reads + limited.writes + limited.otherWrites + limited.events;
    return [
      {
        what: 'no limit: time until all ready with a providerID',
        ours: free.readySeconds,
        unit: 's',
        ...(machines === 100 ? { reference: { label: 'S1 target at N=100', value: 30 } } : {}),
        better: 'lower',
      },
      { what: 'no limit: create → ready per machine, p50', ours: percentile(free.readyLatencies, 50), unit: 's', better: 'lower' },
      {
        what: 'no limit: create → ready per machine, p99',
        ours: percentile(free.readyLatencies, 99),
        unit: 's',
        reference: { label: 'one CAPM3 requeue (A12)', value: 30 },
        better: 'lower',
      },
      { what: 'no limit, its parts (p50): create → owned by its Machine (Cluster API)', ours: percentile(free.adoptLatencies, 50), unit: 's', better: 'lower' },
      { what: 'no limit, its parts (p50): create → host claimed', ours: percentile(free.claimLatencies, 50), unit: 's', better: 'lower' },
      { what: 'no limit, its parts (p50): claimed → host provisioned (BMO)', ours: percentile(free.provisionLatencies, 50), unit: 's', better: 'lower' },
      {
        what: 'no limit, its parts (p50): provisioned → its Node carries the provider ID',
        ours: percentile(free.nodeLatencies, 50),
        unit: 's',
        better: 'lower',
      },
      { what: 'no limit: time until every Node carries its provider ID', ours: free.nodeIdSeconds, unit: 's', better: 'lower' },
      {
        what: 'no limit: deletion until every host is available again (S6)',
        ours: free.deletedSeconds,
        unit: 's',
        reference: { label: 'T_create, the S6 bound', value: free.readySeconds },
        better: 'lower',
      },
      { what: 'no limit: reads per machine (get, list; workload Nodes included)', ours: perMachine(free.reads), unit: 'requests', better: 'lower' },
      {
        what: 'no limit: writes per machine (host, Secret, Metal3Machine)',
        ours: perMachine(free.writes),
        unit: 'requests',
        reference: { label: 'issue 20 goal', value: 8 },
        better: 'lower',
      },
      { what: 'no limit: event writes per machine (apart)', ours: perMachine(free.events), unit: 'requests', better: 'lower' },
      { what: 'no limit: other writes per machine (workload Nodes: P-11)', ours: perMachine(free.otherWrites), unit: 'requests', better: 'lower' },
      {
        what: 'no limit: host LISTs per machine',
        ours: perMachine(free.hostLists),
        unit: 'lists',
        reference: { label: 'S1 aim; CAPM3 lists per association', value: 1 },
        better: 'lower',
      },
      { what: 'no limit: conflicts (409) per machine', ours: perMachine(free.conflicts), unit: 'requests', better: 'lower' },
      { what: 'no limit: reconciles per machine', ours: perMachine(free.reconciles), unit: 'reconciles', better: 'lower' },
      { what: 'no limit: CPU per machine, create → all ready: Cluster API managers', ours: perMachine(free.capiCpuSeconds), unit: 's', better: 'lower' },
      {
        what: 'no limit: CPU per machine, create → all ready: this process (controller, simulated BMO and kubelets)',
        ours: perMachine(free.ownCpuSeconds),
        unit: 's',
        better: 'lower',
      },
      {
        what: '20/30 limit: time until all ready',
        ours: limited.readySeconds,
        unit: 's',
        // Every kind has its own 20 qps bucket (controller-runtime's meaning), so the busiest kind sets the pace.
        reference: {
          label: `1.1 × ${limited.busiestKind.resource} requests / 20 qps`,
          value: (1.1 * limited.busiestKind.requests) / CAPM3_LIMIT.qps,
        },
        better: 'lower',
      },
      {
        what: '20/30 limit: time until all ready',
        ours: limited.readySeconds,
        unit: 's',
        ...goalAt100(machines, CAPM3_DEFAULT_FLAGS.burstReady),
        better: 'lower',
      },
      {
        what: '20/30 limit: time until all claimed',
        ours: limited.claimedSeconds,
        unit: 's',
        ...goalAt100(machines, CAPM3_DEFAULT_FLAGS.burstClaimed),
        better: 'lower',
      },
      {
        what: '20/30 limit ÷ no limit: time until all ready',
        ours: limited.readySeconds / free.readySeconds,
        unit: '',
        reference: {
          label: `CAPM3 v1.12.7's ${CAPM3_DEFAULT_FLAGS.burstReady} ÷ ${CAPM3_DEFAULT_FLAGS.burstUnlimited} s (issue 20)`,
          value: CAPM3_DEFAULT_FLAGS.burstReady / CAPM3_DEFAULT_FLAGS.burstUnlimited,
        },
        better: 'lower',
      },
      { what: '20/30 limit: create → ready per machine, p99', ours: percentile(limited.readyLatencies, 99), unit: 's', better: 'lower' },
      {
        what: '20/30 limit: deletion until every host is available again',
        ours: limited.deletedSeconds,
        unit: 's',
        reference: { label: 'T_create', value: limited.readySeconds },
        better: 'lower',
      },
      { what: '20/30 limit: requests per machine', ours: perMachine(requests), unit: 'requests', better: 'lower' },
      {
        what: '20/30 limit: seconds its requests waited for the client-side limit, per machine',
        ours: limited.throttledSeconds / machines,
        unit: 's',
        better: 'lower',
      },
      {
        what: `20/30 limit: requests per machine of the busiest kind (${limited.busiestKind.resource})`,
        ours: perMachine(limited.busiestKind.requests),
        unit: 'requests',
        better: 'lower',
      },
      ...writeRows(free.tally, machines),
    ];
  } finally {
    await scene.stop();
  }
}

/** The no-limit run's writes per machine by step and shape (issue 20: by resource and step). */
function writeRows(tally: WriteTally, machines: number): Row[] {
  return tallyRows(tally, machines).map(([step, perMachine]) => ({
    what: `no limit, writes per machine by step: ${step}`,
    ours: perMachine,
    unit: 'requests',
    better: 'lower',
  }));
}

/**
 * Kubelets that join `joinDelayMs` after their host is provisioned, as real ones do after minutes:
 * how long a registered Node waits for its provider ID. CAPM3 looks for the Node every 30 s (A12),
 * so a Node waits 15 s on average there (derived); here the Node's arrival wakes its machine.
 */
export async function benchNodeLateness(env: TestEnv, admin: Client, machines: number, joinDelayMs: number): Promise<Row[]> {
  const scene = await machineScene(env, admin, 'bench-join', machines, { joinDelayMs });
  try {
    const run = await burst(env, admin, scene, 'join', machines, undefined, 'running');
    return [
      {
        what: 'Node registered → carries its provider ID, p50',
        ours: percentile(run.nodeIdLatencies, 50),
        unit: 's',
        reference: { label: 'CAPM3 30 s poll, mean (A12, derived)', value: 15 },
        better: 'lower',
      },
      {
        what: 'Node registered → carries its provider ID, p99',
        ours: percentile(run.nodeIdLatencies, 99),
        unit: 's',
        reference: { label: 'CAPM3 30 s poll, worst (A12)', value: 30 },
        better: 'lower',
      },
      {
        what: 'create → Node carries its provider ID, p50',
        ours: percentile(run.nodeIdFromCreate, 50),
        unit: 's',
        reference: { label: 'the join delay', value: joinDelayMs / 1000 },
        better: 'lower',
      },
    ];
  } finally {
    await scene.stop();
  }
}

/**
 * S2: `machines` machines all waiting for a host, over a small and a large inventory: the time until
 * all are claimed, ours beside the reference model's, without a client limit so that the figures show
 * what the inventory size costs. (Under a client limit the model's two requests per association say
 * nothing: the rest of CAPM3's reconcile, which it leaves out, shares that limit.)
 */
export async function benchMachineInventory(env: TestEnv, admin: Client, machines: number, small: number, large: number): Promise<Row[]> {
  const measure = async <T>(hosts: number, then: (scene: MachineScene) => Promise<T>) => {
    const scene = await machineScene(env, admin, `bench-inv${hosts}`, hosts);
    try {
      const reference = await referenceAssociate(admin, scene.namespace, 'ref', machines);
      await releaseReferenceClaims(admin, scene.namespace, 'ref');
      const ours = await burst(env, admin, scene, 'inv', machines, undefined, 'queued');
      return { ours, reference, then: await then(scene) };
    } finally {
      await scene.stop();
    }
  };
  // The small inventory again under CAPM3's default client flags: a row of issue 20's table.
  const s = await measure(small, (scene) => burst(env, admin, scene, 'invcap', machines, CAPM3_LIMIT, 'queued'));
  const l = await measure(large, () => Promise.resolve());
  const model = (value: number) => ({ label: 'CAPM3 association model', value });
  return [
    { what: `all ${machines} claimed, ${small} hosts`, ours: s.ours.claimedSeconds, unit: 's', reference: model(s.reference.seconds), better: 'lower' },
    { what: `all ${machines} claimed, ${large} hosts`, ours: l.ours.claimedSeconds, unit: 's', reference: model(l.reference.seconds), better: 'lower' },
    {
      what: `all ${machines} claimed, ${small} hosts, 20/30 limit`,
      ours: s.then.claimedSeconds,
      unit: 's',
      ...(small === 150 ? goalAt100(machines, CAPM3_DEFAULT_FLAGS.claimed150Hosts) : {}),
      better: 'lower',
    },
    {
      what: `claimed per machine p50, ${large} hosts`,
      ours: percentile(l.ours.claimLatencies, 50),
      unit: 's',
      reference: model(percentile(l.reference.perMachineSeconds, 50)),
      better: 'lower',
    },
    {
      what: `T(${large} hosts) / T(${small} hosts), ours`,
      ours: l.ours.claimedSeconds / s.ours.claimedSeconds,
      unit: '',
      reference: { label: 'S2 target', value: 1.2 },
      better: 'lower',
    },
    {
      what: `T(${large} hosts) / T(${small} hosts), CAPM3 association model`,
      ours: l.reference.seconds / s.reference.seconds,
      unit: '',
      reference: { label: 'S2 target', value: 1.2 },
      better: 'lower',
    },
    // A host list of ours after the cache sync (a watch relist would show here) costs about what one of the model's does.
    {
      what: `host bytes listed per association, ${large} hosts`,
      ours: (l.ours.hostLists * l.reference.listBytesPerAssociation) / machines,
      unit: 'B',
      reference: model(l.reference.listBytesPerAssociation),
      better: 'lower',
    },
    { what: 'host LISTs per association after the cache sync', ours: l.ours.hostLists / machines, unit: 'lists', reference: model(1), better: 'lower' },
    {
      what: `requests per machine until ready, ${large} hosts`,
      ours: (l.ours.reads + l.ours.writes + l.ours.otherWrites) / machines,
      unit: 'requests',
      better: 'lower',
    },
  ];
}
