// `npm start`: the local lab. Starts the test apiserver, the simulators and the five controllers,
// creates N hosts, applies the example cluster (or --manifests), prints progress as it happens until
// the cluster is Running, then prints a kubeconfig and keeps running until Ctrl-C (or exits with
// --exit-when-running, for scripts and CI).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import { EnvtestError } from '@metal3-ts/test/envtest/errors';
import { type ControllerName, CONTROLLERS } from './controllers.ts';
import { DEFAULT_CAPI, EXAMPLE_MANIFESTS, startLab } from './lab.ts';
import { ManifestError, METAL3_VERSIONS, metal3VersionOf, readManifests } from './manifests.ts';
import { describe, isClusterRunning, snapshot } from './progress.ts';

const usage =
  `usage: npm start -- [--hosts N] [--control-plane-hosts N] [--manifests PATH] [--speed instant|bmoTestMode] [--join-delay MS] [--deno NAME]... [--images] [--all-in-one] [--capi VERSION] [--metal3-version V] [--exit-when-running [--timeout S]]
  --hosts N               BareMetalHosts to create (default 8)
  --control-plane-hosts N how many of them are labelled pool=control-plane (default 3; the rest pool=worker)
  --manifests PATH        YAML file or directory to apply (default test/e2e/manifests: the seed 003 cluster,
                          3 control-plane and 3 worker machines)
  --speed S               BMO simulator speed: instant (default) or bmoTestMode (seconds per step, as BMO's test mode)
  --join-delay MS         time from a host provisioned to its Node registering (default 0)
  --deno NAME             run controller NAME (${CONTROLLERS.join(', ')}) under Deno 2
  --images                run every controller from its OCI image (npm run images), as a kubelet would: needs root
  --all-in-one            run every controller as one process (controllers/all-in-one, config/all-in-one's RBAC)
  --capi VERSION          Cluster API release to run (${CAPI_VERSIONS.join(', ')}; default ${DEFAULT_CAPI})
  --metal3-version V      write the manifests' Metal3 objects at V (${METAL3_VERSIONS.join(', ')}), converted as our
                          conversion webhook does (default: as written)
  --exit-when-running     stop and exit 0 once the cluster is Running (exit 1 after --timeout)
  --timeout S             with --exit-when-running, seconds to wait (default 300)`;

function fail(message: string): never {
  console.error(`lab: ${message}\n${usage}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      hosts: { type: 'string', default: '8' },
      'control-plane-hosts': { type: 'string', default: '3' },
      manifests: { type: 'string' },
      speed: { type: 'string', default: 'instant' },
      'join-delay': { type: 'string', default: '0' },
      deno: { type: 'string', multiple: true, default: [] },
      images: { type: 'boolean', default: false },
      'all-in-one': { type: 'boolean', default: false },
      capi: { type: 'string', default: DEFAULT_CAPI },
      'metal3-version': { type: 'string' },
      'exit-when-running': { type: 'boolean', default: false },
      timeout: { type: 'string', default: '300' },
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
const int = (flag: string, text: string, min: number): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) fail(`--${flag} must be a whole number ≥ ${min}, got "${text}"`);
  return n;
};
const hosts = int('hosts', values.hosts, 0);
const controlPlaneHosts = int('control-plane-hosts', values['control-plane-hosts'], 0);
const joinDelayMs = int('join-delay', values['join-delay'], 0);
const timeoutS = int('timeout', values.timeout, 1);
if (values.speed !== 'instant' && values.speed !== 'bmoTestMode') fail(`--speed must be instant or bmoTestMode, got "${values.speed}"`);
if (!CAPI_VERSIONS.includes(values.capi)) fail(`--capi must be one of ${CAPI_VERSIONS.join(', ')}, got "${values.capi}"`);
const metal3Flag = values['metal3-version'];
const metal3Version = metal3Flag === undefined
  ? undefined
  : metal3VersionOf(metal3Flag) ?? fail(`--metal3-version must be one of ${METAL3_VERSIONS.join(', ')}, got "${metal3Flag}"`);
const runtimes: Partial<Record<ControllerName, 'deno'>> = {};
for (const name of values.deno) {
  if (!(CONTROLLERS as readonly string[]).includes(name)) fail(`--deno takes one of ${CONTROLLERS.join(', ')}, got "${name}"`);
  runtimes[name as ControllerName] = 'deno';
}

if (values.images && values.deno.length > 0) fail('--images and --deno exclude each other (an image holds Node 24)');
if (values['all-in-one'] && (values.images || values.deno.length > 0)) {
  fail('--all-in-one runs the all-in-one bundle under Node 24: not with --images or --deno');
}

// npm runs the script from test/e2e; a relative path means the directory npm was started in.
const manifests = values.manifests ? resolve(process.env['INIT_CWD'] ?? process.cwd(), values.manifests) : undefined;
if (manifests !== undefined) {
  if (!existsSync(manifests)) fail(`--manifests: no such file or directory: ${manifests}`);
  try {
    readManifests(manifests);
  } catch (error) {
    fail(`--manifests: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const t0 = performance.now();
let stopping = false;
/** Never settles: parks the progress loop while the signal handlers shut everything down. */
const parked = () => new Promise<never>(() => {});
const at = () => `${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
try {
  const lab = await startLab({
    hosts,
    controlPlaneHosts,
    speed: values.speed,
    joinDelayMs,
    runtimes,
    images: values.images,
    allInOne: values['all-in-one'],
    capi: values.capi,
    metal3Version,
    // The seed 003 cluster (KCP 3 replicas) unless told otherwise.
    manifests: manifests ?? EXAMPLE_MANIFESTS,
    log: (m) => console.log(`${at()} ${m}`),
  });
  // Controllers get SIGTERM first; the test environment's own handler stops the apiserver, removes
  // the lab's files and exits. Until then the progress loop only waits.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopping = true;
      console.log(`${at()} stopping`);
      void lab.stopControllers();
    });
  }
  // Warnings and errors of the controllers (every incarnation), as they come.
  const seen = new Map<object, number>();
  const controllerProblems = () => {
    for (const [name, c] of lab.controllers) {
      for (const p of c.incarnations) {
        const lines = p.lines;
        for (let i = seen.get(p) ?? 0; i < lines.length; i++) {
          const line = lines[i];
          if (line && (line.level === 'warn' || line.level === 'error' || line.level === 'raw')) {
            console.log(`${at()} [${name}] ${line.level}: ${line.msg}${line['error'] ? ` ${String(line['error'])}` : ''}`);
          }
        }
        seen.set(p, lines.length);
      }
    }
  };
  let last = '';
  let running = false;
  const deadline = performance.now() + timeoutS * 1000;
  for (;;) {
    if (stopping) await parked();
    controllerProblems();
    const s = await snapshot(lab.client, lab.namespace).catch((error: unknown) => (stopping ? parked() : Promise.reject(error)));
    const text = describe(s).join('\n');
    if (text !== last) console.log(`${at()} ${text.split('\n').join(`\n${' '.repeat(8)}`)}`);
    last = text;
    const clusters = s.clusters.map((c) => c.metadata.name ?? '');
    if (!running && clusters.length > 0 && clusters.every((c) => isClusterRunning(s, c))) {
      running = true;
      console.log(
        `${at()} the cluster is Running\n\n  export KUBECONFIG=${lab.env.kubeconfigPath}\n  kubectl get baremetalhosts,metal3machines,machines -n ${lab.namespace}\n`,
      );
      if (values['exit-when-running']) {
        await lab.stop();
        process.exit(0);
      }
      console.log('Press Ctrl-C to stop.');
    }
    if (!running && values['exit-when-running'] && performance.now() > deadline) {
      console.error(`lab: the cluster did not reach Running within ${timeoutS} s`);
      await lab.stop();
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
} catch (error) {
  if (stopping) await parked();
  console.error(error instanceof EnvtestError || error instanceof ManifestError ? `lab: ${error.message}` : error);
  process.exit(1);
}
