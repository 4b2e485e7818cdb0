// The five metal3-ts controllers as production runs them: each bundled by esbuild into one file and
// started as its own process (Node 24, or Deno 2 where asked) under the credentials of its own
// deploy/rbac.yaml, with leader election on. Bundles are built once per directory and reused.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { ControllerProcess, repoRoot, type Runtime } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../../scripts/bundle.ts';

export const CONTROLLERS = ['cluster', 'machine', 'template', 'dataclaim', 'data'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];

const bundling = new Map<string, Promise<string>>();

/** `controllers/<name>/src/main.ts` bundled into `<dir>/controller-<name>.mjs` (once per process). */
export function bundleController(name: ControllerName, dir: string): Promise<string> {
  const outfile = join(dir, `controller-${name}.mjs`);
  let done = bundling.get(outfile);
  if (!done) {
    mkdirSync(dir, { recursive: true });
    done = bundle(join(repoRoot, 'controllers', name, 'src', 'main.ts'), outfile, { minify: true }).then(() => outfile);
    bundling.set(outfile, done);
  }
  return done;
}

export interface StartedController {
  readonly name: ControllerName;
  readonly runtime: Runtime;
  readonly process: ControllerProcess;
}

/**
 * Starts controller `name` as a user bound to its deploy/rbac.yaml (leases in `namespace`), watching
 * every namespace, and waits until it serves /readyz.
 */
export async function startController(env: TestEnv, name: ControllerName, options: { dir: string; namespace: string; runtime?: Runtime; extraArgs?: readonly string[] }): Promise<StartedController> {
  const manifest = join(repoRoot, 'controllers', name, 'deploy', 'rbac.yaml');
  if (!existsSync(manifest)) throw new Error(`no RBAC manifest for controller ${name}: ${manifest}`);
  const [bundlePath, user] = await Promise.all([bundleController(name, options.dir), userBoundTo(env, `metal3-ts-${name}`, manifest, options.namespace)]);
  const runtime = options.runtime ?? 'node';
  const process = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig', user.kubeconfigPath,
    // Five processes where CAPM3 runs one: each needs a Lease of its own.
    '--leader-elect', '--leader-elect-namespace', options.namespace, '--leader-elect-id', `metal3-ts-${name}`,
    '--metrics-bind-address', '127.0.0.1:0',
    '--health-probe-bind-address', '127.0.0.1:0',
    ...(options.extraArgs ?? []),
  ]);
  await process.address('readyz');
  return { name, runtime, process };
}
