// Resident memory per controller process (issue 20): the floor a Node 24 or Deno 2 process costs here
// before any controller code, each of the five bundled controllers idle in an empty namespace beside
// the ≤ 60 MB goal, and the all-in-one bundle idle and once N machines are ready (the simulated world
// in the benchmark process, the controller in its own), beside CAPM3's one-process figure. RSS is
// read from /proc (VmRSS now, VmHWM the peak); idle means /readyz 200 and the RSS unchanged twice.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@metal3-ts/generated';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { ControllerProcess, eventually, httpGet, repoRoot, runtimes, sleep } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../scripts/bundle.ts';
import { IMAGE_ENV, imageEnvironment, NODE_FLAGS } from '../../scripts/images/spec.ts';
import { createMachines, deleteMachines, machineScene } from './machine-scene.ts';
import { cpuSeconds } from './proc-stat.ts';
import type { Row } from './report.ts';

export const MiB = 1024 * 1024;
export const CONTROLLERS = ['cluster', 'template', 'machine', 'data', 'dataclaim'] as const;

/** Issue 20's memory goal for the all-in-one process, MiB: CAPM3's 74 MB at 100 machines, 150 at 1 000. */
export const rssGoal = (machines: number): number => (machines >= 1000 ? 150 : 74);

export function memoryOf(pid: number): { rss: number; peak: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  // RssAnon is the heap, malloc arenas and stacks; RssFile the binary's and libraries' touched pages.
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** Open sockets of a process (apiserver connections kept alive, watches, servers): each holds TLS and socket buffers. */
function socketsOf(pid: number): number {
  const links = readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return ''; // closed while we looked
    }
  });
  return links.filter((l) => l.startsWith('socket:')).length;
}

/** RSS once it holds still: two readings a second apart that agree within 1 %. */
export async function settledRss(pid: number): Promise<number> {
  let last = memoryOf(pid).rss;
  for (let i = 0; i < 20; i++) {
    await sleep(1000);
    const now = memoryOf(pid).rss;
    if (Math.abs(now - last) <= last / 100) return now;
    last = now;
  }
  return last;
}

/** RSS of a runtime running `script` once it printed a line (the floor, no controller). */
async function floorRss(command: string, args: readonly string[]): Promise<number> {
  const child = spawn(command, args, { cwd: join(repoRoot, 'bench'), stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`floor process exited with ${code}`)));
    });
    return await settledRss(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

/**
 * V8 flags of the measured controllers: the images' (scripts/images/spec.ts), so the figures are those
 * of what ships; `METAL3_TS_BENCH_NODE_FLAGS` replaces them (empty: none) to weigh another choice.
 */
const nodeFlags = (process.env['METAL3_TS_BENCH_NODE_FLAGS'] ?? NODE_FLAGS.join(' ')).split(' ').filter(Boolean);
/** The images' environment (`NAME=value` each), likewise replaced by `METAL3_TS_BENCH_IMAGE_ENV`. */
const imageEnv = imageEnvironment((process.env['METAL3_TS_BENCH_IMAGE_ENV'] ?? IMAGE_ENV.join(' ')).split(' ').filter(Boolean));

export function start(bundlePath: string, kubeconfig: string, namespace: string, extra: readonly string[] = []): ControllerProcess {
  // deno-fmt-ignore
  const args = [
    '--kubeconfig', kubeconfig, '--namespace', namespace,
    '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '127.0.0.1:0', ...extra,
  ];
  const env = { ...process.env, ...imageEnv, NO_COLOR: '1', KUBECONFIG: '' };
  return new ControllerProcess('node', bundlePath, args, { command: runtimes.node, args: [...nodeFlags, bundlePath, ...args], env });
}

/** Where the heap stands, from the process's own /metrics (shared/src/metrics/process.ts). */
async function heapFigures(p: ControllerProcess): Promise<[string, number][]> {
  const text = (await httpGet(await p.address('metrics'), '/metrics')).body;
  const series = (name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return [
    ['V8 heap committed', series('nodejs_heap_size_total_bytes')],
    ['V8 heap in use', series('nodejs_heap_size_used_bytes')],
    ['V8 new space committed', series('nodejs_heap_space_size_total_bytes{space="new_space"}')],
    ['V8 old space committed', series('nodejs_heap_space_size_total_bytes{space="old_space"}')],
    ['outside the heap (buffers)', series('nodejs_external_memory_bytes')],
  ];
}

export async function ready(p: ControllerProcess): Promise<void> {
  const health = await p.address('readyz');
  await eventually('the controller is ready', async () => ((await httpGet(health, '/readyz')).status === 200 ? true : undefined), 30_000);
}

export async function stop(p: ControllerProcess): Promise<void> {
  p.kill('SIGTERM');
  await p.exited;
}

export async function bundled<T>(names: readonly string[], run: (bundles: ReadonlyMap<string, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-bench-rss-'));
  try {
    const bundles = new Map<string, string>();
    for (const c of names) {
      const path = join(dir, `controller-${c}.mjs`);
      await bundle(join(repoRoot, 'controllers', c, 'src', 'main.ts'), path, { minify: true });
      bundles.set(c, path);
    }
    return await run(bundles);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The floors, each controller idle, the all-in-one process idle. */
export function benchProcessRss(env: TestEnv): Promise<Row[]> {
  return bundled([...CONTROLLERS, 'all-in-one'], async (bundles) => {
    const idle = 'console.log("ready"); setInterval(() => {}, 1000);';
    const bareNode = await floorRss(runtimes.node, ['-e', idle]);
    const nodeWithHttp = await floorRss(runtimes.node, ['-e', `require("node:http"); require("node:https"); ${idle}`]);
    const bareDeno = await floorRss(runtimes.deno, ['eval', idle]);
    const rows: Row[] = [
      { what: 'floor: bare Node 24 process', ours: bareNode / MiB, unit: 'MiB', better: 'lower' },
      { what: 'floor: Node 24 with node:http and node:https loaded', ours: nodeWithHttp / MiB, unit: 'MiB', better: 'lower' },
      { what: 'floor: bare Deno 2 process', ours: bareDeno / MiB, unit: 'MiB', better: 'lower' },
    ];
    const namespace = await freshNamespace(env.admin.client, 'bench-rss');
    let sum = 0;
    for (const c of CONTROLLERS) {
      const p = start(bundles.get(c)!, env.kubeconfigPath, namespace);
      try {
        await ready(p);
        const rss = await settledRss(p.child.pid!);
        sum += rss;
        rows.push({ what: `idle RSS, ${c} controller (Node 24)`, ours: rss / MiB, unit: 'MiB', reference: { label: 'goal', value: 60 }, better: 'lower' });
      } finally {
        await stop(p);
      }
    }
    const aioIdle = start(bundles.get('all-in-one')!, env.kubeconfigPath, namespace);
    try {
      await ready(aioIdle);
      const rss = await settledRss(aioIdle.child.pid!);
      rows.push({
        what: 'all-in-one RSS idle (Node 24)',
        ours: rss / MiB,
        unit: 'MiB',
        reference: { label: 'the five processes together', value: sum / MiB },
        better: 'lower',
      });
    } finally {
      await stop(aioIdle);
    }
    return rows;
  });
}

/** The all-in-one process while `machines` machines become ready over as many hosts, and after. */
export function benchAllInOneMachines(env: TestEnv, admin: Client, machines: number): Promise<Row[]> {
  return bundled(['all-in-one'], async (bundles) => {
    const rows: Row[] = [];
    const scene = await machineScene(env, admin, 'bench-aio', machines);
    const p = start(bundles.get('all-in-one')!, env.kubeconfigPath, scene.namespace, ['--kube-api-qps', '0']);
    try {
      await ready(p);
      const t0 = scene.now();
      const names = [...(await createMachines(admin, scene, 'aio', machines)).keys()];
      await scene.until(`${machines} machines ready`, () => names.every((n) => scene.readyAt.has(n) && scene.nodeIdAt.has(n)), 120_000 + machines * 1_000);
      // Read at once: the settling and the quiet minute below are not part of the burst.
      const allReady = (scene.now() - t0) / 1000;
      const cpu = cpuSeconds(p.child.pid!);
      const rss = await settledRss(p.child.pid!);
      const { peak, anon, file } = memoryOf(p.child.pid!);
      const heap = await heapFigures(p);
      // A minute later, quiet: V8's memory reducer has had its idle time to collect and give pages back.
      await sleep(60_000);
      const later = memoryOf(p.child.pid!);
      const sockets = socketsOf(p.child.pid!);
      const heapLater = await heapFigures(p);
      const goal = rssGoal(machines);
      rows.push(
        {
          what: `all-in-one RSS with ${machines} ready machines`,
          ours: rss / MiB,
          unit: 'MiB',
          reference: { label: `goal (CAPM3: 74 MB at 100)`, value: goal },
          better: 'lower',
        },
        {
          what: `all-in-one peak RSS (VmHWM) over the ${machines}-machine burst`,
          ours: peak / MiB,
          unit: 'MiB',
          reference: { label: 'goal', value: goal },
          better: 'lower',
        },
        { what: `all-in-one RSS with ${machines} ready machines: anonymous (heap, malloc, stacks)`, ours: anon / MiB, unit: 'MiB', better: 'lower' },
        { what: `all-in-one RSS with ${machines} ready machines: file-backed (binary, libraries)`, ours: file / MiB, unit: 'MiB', better: 'lower' },
        ...heap.map(([what, bytes]) => ({
          what: `all-in-one with ${machines} ready machines: ${what} (/metrics)`,
          ours: bytes / MiB,
          unit: 'MiB',
          better: 'lower' as const,
        })),
        {
          what: `all-in-one RSS with ${machines} ready machines, a quiet minute later`,
          ours: later.rss / MiB,
          unit: 'MiB',
          reference: { label: 'goal', value: goal },
          better: 'lower',
        },
        { what: `… a quiet minute later: open sockets`, ours: sockets, unit: '', better: 'lower' },
        ...heapLater.slice(0, 2).map(([what, bytes]) => ({
          what: `… a quiet minute later: ${what} (/metrics)`,
          ours: bytes / MiB,
          unit: 'MiB',
          better: 'lower' as const,
        })),
        { what: `all-in-one: ${machines} machines ready with provider IDs on their Nodes (no client limit)`, ours: allReady, unit: 's', better: 'lower' },
        { what: 'all-in-one CPU seconds (user + system), start to all ready', ours: cpu, unit: 's', better: 'lower' },
        { what: 'all-in-one CPU seconds per machine, start to all ready', ours: cpu / machines, unit: 's', better: 'lower' },
      );
      // Left behind, the Machines would keep the real Cluster API busy during the later scenes.
      await deleteMachines(admin, scene, names, 120_000 + machines * 1_000);
    } finally {
      await stop(p);
      await scene.stop();
    }
    return rows;
  });
}
