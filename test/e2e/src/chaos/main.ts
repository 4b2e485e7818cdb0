// `npm run chaos -w @metal3-ts/e2e`: the full-size chaos run (issue 21): at least 100 SIGKILLs of
// random controller processes, 2 kube-apiserver restarts and 1 etcd outage over repeated cluster
// lifecycles on the lab, with the invariants sampled throughout. Prints progress and the figures;
// exits 1 on any violation, leftover, non-converged phase or incomplete plan.
import process from 'node:process';
import { parseArgs } from 'node:util';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import { DEFAULT_CAPI } from '../lab/lab.ts';
import { METAL3_VERSIONS, metal3VersionOf } from '../lab/manifests.ts';
import { describeReport, runChaos } from './run.ts';

const usage =
  `usage: npm run chaos -w @metal3-ts/e2e -- [--kills N] [--apiserver-restarts N] [--etcd-restarts N] [--seed N] [--pause MIN,MAX] [--outage MIN,MAX] [--rounds N] [--capi VERSION] [--metal3-version V]
  --kills N               SIGKILLs at least (default 100)
  --apiserver-restarts N  kube-apiserver restarts (default 2)
  --etcd-restarts N       etcd stops/starts (default 1)
  --seed N                PRNG seed (default $CHAOS_SEED, else random); printed for replay
  --pause MIN,MAX         ms between two chaos actions (default 1000,3000)
  --outage MIN,MAX        ms an apiserver or etcd stays down (default 2000,6000)
  --rounds N              lifecycle rounds at least, the kills shared evenly over their phases (default 3; more run until the plan is complete)
  --capi VERSION          Cluster API release to run (${CAPI_VERSIONS.join(', ')}; default ${DEFAULT_CAPI})
  --metal3-version V      write the cluster's Metal3 objects at V (${METAL3_VERSIONS.join(', ')}; default as the manifests are written)`;

function fail(message: string): never {
  console.error(`chaos: ${message}\n${usage}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      kills: { type: 'string', default: '100' },
      'apiserver-restarts': { type: 'string', default: '2' },
      'etcd-restarts': { type: 'string', default: '1' },
      seed: { type: 'string', default: process.env['CHAOS_SEED'] ?? String(Math.floor(Math.random() * 2 ** 31)) },
      pause: { type: 'string', default: '1000,3000' },
      outage: { type: 'string', default: '2000,6000' },
      rounds: { type: 'string', default: '3' },
      capi: { type: 'string', default: DEFAULT_CAPI },
      'metal3-version': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const int = (flag: string, text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) fail(`--${flag} must be a whole number ≥ 0, got "${text}"`);
  return n;
};
const range = (flag: string, text: string): [number, number] => {
  const [min, max] = text.split(',').map((x) => int(flag, x));
  if (min === undefined || max === undefined || min > max) fail(`--${flag} must be MIN,MAX with MIN ≤ MAX, got "${text}"`);
  return [min, max];
};

if (!CAPI_VERSIONS.includes(values.capi)) fail(`--capi must be one of ${CAPI_VERSIONS.join(', ')}, got "${values.capi}"`);
const metal3Flag = values['metal3-version'];
const metal3Version = metal3Flag === undefined
  ? undefined
  : metal3VersionOf(metal3Flag) ?? fail(`--metal3-version must be one of ${METAL3_VERSIONS.join(', ')}, got "${metal3Flag}"`);

const t0 = performance.now();
const at = () => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
const report = await runChaos({
  seed: int('seed', values.seed),
  kills: int('kills', values.kills),
  apiserverRestarts: int('apiserver-restarts', values['apiserver-restarts']),
  etcdRestarts: int('etcd-restarts', values['etcd-restarts']),
  pauseMs: range('pause', values.pause),
  outageMs: range('outage', values.outage),
  minRounds: int('rounds', values.rounds),
  capi: values.capi,
  metal3Version,
  log: (m) => console.log(`${at()} ${m}`),
});
console.log(`\nchaos run:\n${describeReport(report).map((l) => `  ${l}`).join('\n')}`);
process.exit(report.violations.length === 0 && !report.failure && report.planComplete ? 0 : 1);
