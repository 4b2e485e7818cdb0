// The harness benchmark: starts the real test apiserver, fills it, and prints each measurement beside
// its reference. `--quick` shrinks every size (a smoke run for CI); without it, sizes are those the
// issue asks about. Run with `npm run bench -w @metal3-ts/bench [-- --quick]`.
import process from 'node:process';
import { newClient } from '@metal3-ts/shared/client/client';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { startEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { benchCacheMemory } from './cache-memory.ts';
import { benchClientThroughput } from './client-throughput.ts';
import { benchCapiVersion, stopBenchClusterApi } from './cluster-api.ts';
import { benchDataStorm } from './data-storm.ts';
import { canCollect } from './gc.ts';
import { benchIdleRss } from './idle-rss.ts';
import { benchMachineBurst, benchMachineInventory, benchNodeLateness } from './machine-burst.ts';
import { benchNoopReconcile } from './noop-reconcile.ts';
import { populateHosts } from './populate.ts';
import { benchAllInOneMachines, benchProcessRss } from './process-rss.ts';
import { printSection } from './report.ts';
import { benchRestart } from './restart.ts';
import { benchSeparateFleet } from './separate-rss.ts';

const quick = process.argv.includes('--quick');
// `--only cache,client,reconcile,rss,restart,separate,storm,machines,join,inventory` runs a subset (handy while working on one part;
// `restart` is the fleet: a burst, the steady window and the restarts, with and without leader election).
// `--capi v1.10.10` (or CAPI_VERSION) picks the real Cluster API release of the Metal3Machine scenes.
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
const wanted = (section: string) => !only || only.has(section);
const sizes = quick
  ? { hosts: 100, rounds: 3, requests: 300, claims: 50, machines: 10, inventory: [20, 200] as const, joins: 5, joinDelayMs: 5_000 }
  : { hosts: 2000, rounds: 10, requests: 5000, claims: 500, machines: 100, inventory: [150, 1500] as const, joins: 20, joinDelayMs: 45_000 };
// `--machines N` overrides the machine count of every Metal3Machine section (e.g. 100 at quick sizes: the
// full run's 2 000 extra hosts keep the simulated BMO of a later scene busy on a loaded machine).
const machinesAt = process.argv.indexOf('--machines');
if (machinesAt >= 0) sizes.machines = Number(process.argv[machinesAt + 1]);
// `--steady-seconds S`: the restart section's quiet window (60 s quick: twice the controllers' 30 s
// safety-net requeue, so a periodic pass shows; 120 s full: CAPM3's reference unit; 1800 for S4).
const steadyAt = process.argv.indexOf('--steady-seconds');
const steadySeconds = steadyAt >= 0 ? Number(process.argv[steadyAt + 1]) : quick ? 60 : 120;
if (!(steadySeconds > 0)) {
  console.error(`bench: --steady-seconds must be a positive number of seconds, got "${process.argv[steadyAt + 1]}"`);
  process.exit(2);
}
if (!canCollect()) {
  console.error('bench: run with --expose-gc (npm run bench does) so heap figures are measured after a collection');
  process.exit(2);
}

// Checked before anything starts: a wrong `--capi` or CAPI_VERSION is an error naming the releases known.
const capiVersion = benchCapiVersion();
const env = await startEnv({ authorization: 'RBAC' });
try {
  console.log(`# metal3-ts harness benchmark (${quick ? 'quick' : 'full'}): Node ${process.versions.node}, ${sizes.hosts} hosts, Cluster API ${capiVersion}`);
  const counter = new RequestCounter();
  const client = newClient(env.admin, { counter });
  const namespace = await freshNamespace(env.admin.client, 'bench');
  const t0 = performance.now();
  await populateHosts(client, namespace, sizes.hosts);
  console.log(`(created ${sizes.hosts} inspected hosts in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  // Memory first, before other sections leave garbage and loaded modules behind.
  if (wanted('cache')) printSection('Cache: heap per cached BareMetalHost', await benchCacheMemory(client, namespace, sizes.hosts));
  if (wanted('client')) printSection('Client: requests per second against the real apiserver', await benchClientThroughput(env, namespace, sizes.requests));
  if (wanted('reconcile')) printSection('Controller: no-op reconciles', await benchNoopReconcile(client, counter, namespace, sizes.rounds));
  if (wanted('rss')) {
    printSection('Process: idle RSS of a bundled controller', await benchIdleRss(env));
    printSection('Process: the floor, each controller and the all-in-one process, idle (issue 20)', await benchProcessRss(env));
    printSection(`Process: the all-in-one process with ${sizes.machines} machines (issue 20)`, await benchAllInOneMachines(env, client, sizes.machines));
  }
  if (wanted('restart')) {
    const { fleet, steady, restart, writesAfterRestart, elected } = await benchRestart(env, client, sizes.machines, steadySeconds);
    printSection(`Fleet: ${sizes.machines} Machines at once over as many hosts, the all-in-one process apart from the simulated world (issue 20)`, fleet);
    printSection(`Steady state: the all-in-one process with ${sizes.machines} ready machines, ${steadySeconds} s quiet (issue 20, S4)`, steady);
    printSection(`Restart: SIGKILL the all-in-one process with ${sizes.machines} ready machines, start it again (issue 20, S7)`, restart);
    console.log(writesAfterRestart.length === 0 ? 'writes after the restart: none' : `writes after the restart: ${writesAfterRestart.join('; ')}`);
    printSection(`Restart with leader election (--leader-elect): ${sizes.machines} ready machines (issue 20, S7)`, elected);
  }
  if (wanted('separate')) {
    printSection(`Process: the five controllers apart, ${sizes.machines} Machines at once (issue 20)`, await benchSeparateFleet(env, client, sizes.machines));
  }
  if (wanted('machines')) {
    printSection(`Metal3Machine burst: ${sizes.machines} machines on as many hosts (S1, S6; A12, C5)`, await benchMachineBurst(env, client, sizes.machines));
  }
  if (wanted('join')) {
    const title = `Kubelets joining ${sizes.joinDelayMs / 1000} s after provisioning: ${sizes.joins} machines (E-36, A12)`;
    printSection(title, await benchNodeLateness(env, client, sizes.joins, sizes.joinDelayMs));
  }
  if (wanted('inventory')) {
    const [small, large] = sizes.inventory;
    printSection(
      `Metal3Machine association against the inventory size: ${sizes.machines} machines (S2; A10)`,
      await benchMachineInventory(env, client, sizes.machines, small, large),
    );
  }
  if (wanted('storm')) printSection(`Metal3DataClaim storm: ${sizes.claims} claims on one template (S3, A11)`, await benchDataStorm(env, client, sizes.claims));
} finally {
  await stopBenchClusterApi();
  await env.stop();
}
