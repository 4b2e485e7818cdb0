// The metal3-ts controllers as production runs them: each bundled by esbuild into one file and
// started as its own process (Node 24, or Deno 2 where asked) under the credentials of its own
// deploy/rbac.yaml, with leader election on, and restarted whenever it exits (supervisor.ts), as a
// kubelet would. Bundles are built once per directory and reused.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { ControllerProcess, repoRoot, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../../scripts/bundle.ts';
import { LAB_POLICY, type RestartPolicy } from './backoff.ts';
import { SupervisedController } from './supervisor.ts';

export const CONTROLLERS = ['cluster', 'machine', 'template', 'dataclaim', 'data', 'labelsync', 'remediation'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];
/** All of them in one process (controllers/all-in-one, `npm start -- --all-in-one`), under config/all-in-one's RBAC. */
export const ALL_IN_ONE = 'all-in-one';
export type ProcessName = ControllerName | typeof ALL_IN_ONE;

const bundling = new Map<string, Promise<string>>();

/** `controllers/<name>/src/main.ts` bundled into `<dir>/controller-<name>.mjs` (once per process). */
export function bundleController(name: ProcessName, dir: string): Promise<string> {
  const outfile = join(dir, `controller-${name}.mjs`);
  let done = bundling.get(outfile);
  if (!done) {
    mkdirSync(dir, { recursive: true });
    done = bundle(join(repoRoot, 'controllers', name, 'src', 'main.ts'), outfile, { minify: true }).then(() => outfile);
    bundling.set(outfile, done);
  }
  return done;
}

export interface ControllerOptions {
  readonly dir: string;
  readonly namespace: string;
  readonly runtime?: Runtime;
  readonly extraArgs?: readonly string[];
  /** Restart back-off (default LAB_POLICY). */
  readonly restartPolicy?: RestartPolicy;
  /** Where exits and restarts are reported. */
  readonly log?: (message: string) => void;
}

/**
 * Starts controller `name` as a user bound to its deploy/rbac.yaml (leases in `namespace`), watching
 * every namespace, under supervision, and waits until its first process serves /readyz.
 */
export async function startController(env: TestEnv, name: ProcessName, options: ControllerOptions): Promise<SupervisedController> {
  // The all-in-one rules are generated (the union of the five), so they live in config/ only.
  const manifest = name === ALL_IN_ONE ? join(repoRoot, 'config', 'all-in-one', 'rbac.yaml') : join(repoRoot, 'controllers', name, 'deploy', 'rbac.yaml');
  if (!existsSync(manifest)) throw new Error(`no RBAC manifest for controller ${name}: ${manifest}`);
  const [bundlePath, user] = await Promise.all([bundleController(name, options.dir), userBoundTo(env, `metal3-ts-${name}`, manifest, options.namespace)]);
  const runtime = options.runtime ?? 'node';
  const args = [
    '--kubeconfig',
    user.kubeconfigPath,
    // Five processes where CAPM3 runs one: each needs a Lease of its own.
    '--leader-elect',
    '--leader-elect-namespace',
    options.namespace,
    '--leader-elect-id',
    `metal3-ts-${name}`,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    ...(options.extraArgs ?? []),
  ];
  const supervised = new SupervisedController(
    name,
    runtime,
    () => new ControllerProcess(runtime, bundlePath, args),
    options.restartPolicy ?? LAB_POLICY,
    options.log ?? (() => {}),
  );
  try {
    await supervised.process.address('readyz');
  } catch (error) {
    await supervised.stop();
    throw error;
  }
  return supervised;
}
