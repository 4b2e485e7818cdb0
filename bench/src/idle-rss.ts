// Resident memory of a bundled controller process once it has synced and gone idle, under Node 24 and
// Deno 2, beside a bare Node process and a Node process that has only imported
// @kubernetes/client-node (what a controller built on it pays before doing anything).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllerProcess, eventually, httpGet, repoRoot, type Runtime, runtimes, sleep } from '@metal3-ts/test/harness/controller-process';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { bundle } from '../../scripts/bundle.ts';
import type { Row } from './report.ts';

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for pid ${pid}`);
  return kb * 1024;
}

async function controllerRss(runtime: Runtime, bundlePath: string, env: TestEnv): Promise<number> {
  const p = new ControllerProcess(runtime, bundlePath, [
    '--kubeconfig',
    env.kubeconfigPath,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    'localhost:0',
  ]);
  try {
    const health = await p.address('readyz');
    await eventually('the controller is ready', async () => ((await httpGet(health, '/readyz')).status === 200 ? true : undefined), 30_000);
    await sleep(3000); // idle: initial reconciles done, JIT and allocations settled
    return rssOf(p.child.pid!);
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
}

/** RSS of `node -e <script>` once the script says it is ready (prints a line). */
async function scriptRss(script: string): Promise<number> {
  const child = spawn(runtimes.node, ['--input-type=module', '-e', script], { cwd: join(repoRoot, 'bench'), stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`reference process exited with ${code}`)));
    });
    await sleep(1000);
    return rssOf(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

export async function benchIdleRss(env: TestEnv): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-bench-'));
  try {
    const bundlePath = join(dir, 'example-controller.mjs');
    const built = await bundle(join(repoRoot, 'shared', 'src', 'entry', 'testdata', 'example-main.ts'), bundlePath, { minify: true });
    const MiB = 1024 * 1024;
    const bare = await scriptRss("console.log('ready'); setInterval(() => {}, 1000);");
    const clientNode = await scriptRss(
      "const k8s = await import('@kubernetes/client-node'); new k8s.KubeConfig(); console.log('ready'); setInterval(() => {}, 1000);",
    );
    const node = await controllerRss('node', bundlePath, env);
    const deno = await controllerRss('deno', bundlePath, env);
    return [
      { what: `bundle size (example controller, minified)`, ours: built.bytes / 1024, unit: 'KiB', better: 'lower' },
      { what: 'idle RSS, controller under Node 24', ours: node / MiB, unit: 'MiB', reference: { label: 'target', value: 80 }, better: 'lower' },
      {
        what: 'idle RSS, controller under Node 24',
        ours: node / MiB,
        unit: 'MiB',
        reference: { label: 'node importing only client-node', value: clientNode / MiB },
        better: 'lower',
      },
      {
        what: 'idle RSS, controller under Node 24',
        ours: node / MiB,
        unit: 'MiB',
        reference: { label: 'bare node process', value: bare / MiB },
        better: 'lower',
      },
      { what: 'idle RSS, controller under Deno 2', ours: deno / MiB, unit: 'MiB', reference: { label: 'target', value: 80 }, better: 'lower' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
