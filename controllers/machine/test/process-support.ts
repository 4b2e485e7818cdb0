// The bundled Metal3Machine controller (src/main.ts through scripts/bundle.ts) as child processes for
// the bundle, race and crash tests: one bundle per test file, processes started with the credentials
// of a user bound to exactly deploy/rbac.yaml, every process tracked so a test's `after` hook can
// kill (and reap) whatever is still running even when the test failed; plus a seeded PRNG and
// small readers of the cluster state the tests assert on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { ControllerProcess, eventually, httpGet, type Runtime, sleep } from '@metal3-ts/test/harness/controller-process';
import { bundle } from '../../../scripts/bundle.ts';
import { type MachineTestScene, machineTestScene, RBAC_MANIFEST, type SceneOptions } from './support.ts';

export interface Bundle {
  readonly path: string;
  readonly bytes: number;
  readonly ms: number;
  /** Removes the temporary directory. */
  remove(): void;
}

/** src/main.ts bundled (minified, as shipped) into a fresh temporary directory. */
export async function buildBundle(prefix: string): Promise<Bundle> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const path = join(dir, 'controller-machine.mjs');
  const start = performance.now();
  const { bytes } = await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), path, { minify: true });
  return { path, bytes, ms: performance.now() - start, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ProcessSceneOptions extends Omit<SceneOptions, 'controller' | 'setup' | 'teardown'> {
  /** With a label: a user bound to deploy/rbac.yaml for the processes, made in the `before` hook. */
  readonly user?: string;
}

/** A machineTestScene without a controller in the test process, plus the bundle and the processes' kubeconfig. */
export interface ProcessTestScene extends MachineTestScene {
  readonly bundle: Bundle;
  /** The kubeconfig of the `user` (read only when one was asked for). */
  readonly kubeconfig: string;
}

/**
 * machineTestScene for the tests of the bundled controller: the `before` hook also bundles src/main.ts
 * (in a temporary directory named after `prefix`) and makes the user; the `after` hook first kills
 * whatever process is still running, then removes the bundle.
 */
export function processTestScene(test: Parameters<typeof machineTestScene>[0], options: ProcessSceneOptions): ProcessTestScene {
  const { user, ...sceneOptions } = options;
  let built: Bundle | undefined;
  let kubeconfig: string | undefined;
  const scene = machineTestScene(test, {
    ...sceneOptions,
    controller: false,
    async setup(s) {
      built = await buildBundle(options.prefix);
      if (user) kubeconfig = await rbacUser(s.env, s.ns, user);
    },
    async teardown() {
      await killAll();
      built?.remove();
    },
  });
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`processTestScene(${options.prefix}): no ${what}`);
    return value;
  };
  return Object.defineProperties(scene, {
    bundle: { get: () => required(built, 'bundle') },
    kubeconfig: { get: () => required(kubeconfig, 'kubeconfig (no user asked for)') },
  }) as ProcessTestScene;
}

let users = 0;

/**
 * A fresh user bound to deploy/rbac.yaml: the ClusterRole cluster-wide, the leader-election Role
 * (namespace capm3-system in the manifest) bound in `namespace`, as the sibling bundle tests do.
 */
export async function rbacUser(env: TestEnv, namespace: string, label: string): Promise<string> {
  const connection = await userBoundTo(env, `machine-${label}-${++users}-${namespace}`, RBAC_MANIFEST, namespace);
  return connection.kubeconfigPath;
}

export interface StartOptions {
  readonly runtime?: Runtime;
  readonly kubeconfig: string;
  readonly namespace: string;
  /** `--leader-elect --leader-elect-namespace <namespace>`. Default false. */
  readonly leaderElect?: boolean;
  readonly concurrency?: number;
  readonly extraArgs?: readonly string[];
}

/** Every process a test file started that has not been reaped yet. */
const live = new Set<ControllerProcess>();

export function startController(bundlePath: string, options: StartOptions): ControllerProcess {
  const args = [
    '--kubeconfig',
    options.kubeconfig,
    '--namespace',
    options.namespace,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
    ...(options.leaderElect ? ['--leader-elect', '--leader-elect-namespace', options.namespace] : []),
    ...(options.concurrency !== undefined ? ['--metal3machine-concurrency', String(options.concurrency)] : []),
    ...(options.extraArgs ?? []),
  ];
  const p = new ControllerProcess(options.runtime ?? 'node', bundlePath, args);
  live.add(p);
  void p.exited.then(() => live.delete(p));
  return p;
}

/** Waits for the probe address and /readyz 200; returns the probe address. */
export async function waitReady(p: ControllerProcess, timeoutMs = 30_000): Promise<string> {
  const probes = await p.address('readyz');
  await eventually(
    `${p.runtime} controller: /readyz 200 (log tail:\n${p.tail(10)})`,
    async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined),
    timeoutMs,
  );
  return probes;
}

/** SIGKILL and wait until the process is reaped (bounded). */
export async function killHard(p: ControllerProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.kill('SIGKILL');
  await Promise.race([p.exited, sleep(10_000)]);
}

/** For `after` hooks: kills and reaps every process still running, whatever the test outcome. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((p) => killHard(p)));
}

/** The sum of `controller_runtime_reconcile_total{controller="metal3machine",…}` over all results. */
export function reconcileTotal(metrics: string, controller = 'metal3machine'): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('controller_runtime_reconcile_total{') || !line.includes(`controller="${controller}"`)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** The sum of every sample of metric `name` (`name{…} v` or `name v`) whose line contains all of `labels`. */
export function metricSum(metrics: string, name: string, ...labels: string[]): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (!(line.startsWith(`${name}{`) || line.startsWith(`${name} `)) || !labels.every((l) => line.includes(l))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** mulberry32: a small seeded PRNG, so a failing crash schedule can be replayed with its seed. */
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

export const listHosts = async (client: Client, namespace: string): Promise<BareMetalHost[]> =>
  (await client.api(BareMetalHostResource, namespace).list()).items;
export const listMetal3Machines = async (client: Client, namespace: string): Promise<Metal3Machine[]> =>
  (await client.api(Metal3MachineResource, namespace).list()).items;

export const stateOf = (h: Readonly<BareMetalHost>): string => h.status?.provisioning?.state ?? '';

/**
 * The claim invariants over one listing of the hosts: no Metal3Machine is the consumer of two hosts
 * (a host cannot name two consumers: consumerRef is a single reference). Returns the violations.
 */
export function doubleClaims(hosts: readonly Readonly<BareMetalHost>[]): string[] {
  const byConsumer = new Map<string, string[]>();
  for (const h of hosts) {
    const ref = h.spec?.consumerRef;
    if (!ref) continue;
    const key = `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
    byConsumer.set(key, [...(byConsumer.get(key) ?? []), h.metadata.name ?? '']);
  }
  return [...byConsumer].filter(([, names]) => names.length > 1).map(([consumer, names]) => `${consumer} is the consumer of ${names.join(', ')}`);
}
