// The chaos run at CI size (issue 21): one cluster lifecycle (bring-up, upgrade with node reuse,
// scale, deletion) on the lab while about 20 SIGKILLs hit random controller processes and the
// kube-apiserver and etcd each go down once; the invariants are sampled throughout and nothing may be
// left at the end. The full size (≥ 100 kills) is `npm run chaos -w @metal3-ts/e2e` (docs/chaos.md).
// CHAOS_SEED replays a run's chaos (pauses, victims, outage lengths); CHAOS_KILLS changes its size.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import process from 'node:process';
import { describeReport, runChaos } from '../chaos/run.ts';
import { CAPI, METAL3, RUN } from './support.ts';

const SEED = Number(process.env['CHAOS_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const KILLS = Number(process.env['CHAOS_KILLS'] ?? 20);

test(`chaos on ${RUN} (H-5 one consumer per host, DT-12 unique indexes, D-16 one address per claim, N-6/H-10 node reuse, X-11/X-16 release): ${KILLS} SIGKILLs, an apiserver restart and an etcd outage over bring-up, upgrade with node reuse, scale and deletion: no violation in any sample, nothing left, every phase converges`, async () => {
  console.log(`chaos: seed ${SEED} (replay with CHAOS_SEED=${SEED})`);
  const report = await runChaos({
    seed: SEED,
    kills: KILLS,
    apiserverRestarts: 1,
    etcdRestarts: 1,
    pauseMs: [500, 2000],
    outageMs: [2000, 5000],
    // One round usually delivers the plan; when the phases converge faster than the kills come (a
    // quick deletion takes only two or three), a second round finishes it rather than failing the count.
    maxRounds: 2,
    // A phase's bound, not its expected time: the upgrade rolls 3 control-plane replicas (about 100 s
    // here) and may take an apiserver restart, an etcd outage and Cluster API's requeue backoff after
    // them on top; the invariants, not the speed, are what this test judges.
    phaseTimeoutMs: 300_000,
    capi: CAPI,
    metal3Version: METAL3,
  });
  const lines = describeReport(report);
  console.log(lines.map((l) => `chaos: ${l}`).join('\n'));
  assert.not.ok(report.failure, `seed ${SEED}: every phase converged\n${lines.join('\n')}`);
  assert.equal(report.violations, [], `seed ${SEED}: no violation\n${lines.join('\n')}`);
  assert.ok(report.kills >= KILLS, `seed ${SEED}: at least ${KILLS} kills (got ${report.kills})`);
  assert.is(report.outages.length, 2, 'one apiserver restart and one etcd outage');
  assert.ok(report.samples > 50, `the invariants were sampled throughout (${report.samples} samples)`);
});

test.run();
