// The bundle test every controller package runs, once: its src/main.ts bundled into one file
// (scripts/bundle.ts, minified) and started under Node 24 and under Deno 2 with the credentials of a
// user bound to exactly its deploy/rbac.yaml and leader election on (the manifest's Role), the common
// flags plus the package's own; it must become ready (/readyz 200), pass the package's scenario, hold
// the Lease, exit 0 on SIGTERM and log no error (and, unless allowed, no warning). The package gives
// the scenario; everything around it is here.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Transport } from '@metal3-ts/generated';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { bundle } from '../../../scripts/bundle.ts';
import type { TestEnv } from '../envtest/env.ts';
import { userBoundTo } from '../envtest/rbac.ts';
import { freshNamespace, withSharedEnv } from '../envtest/suite.ts';
import { ControllerProcess, httpGet, type Runtime } from '../harness/controller-process.ts';
import { eventually } from './eventually.ts';

export interface BundleScene {
  readonly runtime: Runtime;
  /** The cluster admin's client. */
  readonly admin: Client;
  /** The fresh namespace the controller watches. */
  readonly namespace: string;
  readonly process: ControllerProcess;
}

export interface BundleSuiteOptions {
  /** The suite's title. */
  readonly title: string;
  /** src/main.ts of the package (a file path). */
  readonly entry: string;
  /** Path of the package's deploy/rbac.yaml. */
  readonly rbac: string;
  /** Short name for files, namespaces and users (`dataclaim`). */
  readonly name: string;
  /** Flags beyond the common ones (kubeconfig, namespace, leader election, probe and metrics addresses), or per runtime. */
  readonly flags?: readonly string[] | ((runtime: Runtime) => readonly string[]);
  /** Started before the tests and stopped after them: what runs beside the controller (a simulator). */
  beside?(env: TestEnv): Promise<{ stop(): Promise<void> }>;
  /** Test titles under Node and under Deno. */
  readonly titles: { readonly node: string; readonly deno: string };
  /** Warnings are allowed in the log (errors never are). */
  readonly warningsAllowed?: boolean;
  /** What the controller must do once ready. */
  scenario(scene: BundleScene): Promise<void>;
}

/** Defines and runs the suite (call it once from the package's test/bundle.test.ts). */
export function bundleSuite(options: BundleSuiteOptions): void {
  const test = suite(options.title);
  const env = withSharedEnv(test);
  let dir = '';
  let bundlePath = '';
  let admin: Client | undefined;
  const running: ControllerProcess[] = [];
  let beside: { stop(): Promise<void> } | undefined;

  test.before(async () => {
    dir = mkdtempSync(join(tmpdir(), `${options.name}-bundle-`));
    bundlePath = join(dir, `controller-${options.name}.mjs`);
    await bundle(options.entry, bundlePath, { minify: true });
    admin = new Client(Transport.fromConnection(env().admin));
    beside = await options.beside?.(env());
  });

  test.after(async () => {
    for (const p of running) p.kill('SIGKILL');
    await beside?.stop();
    admin?.transport.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function run(runtime: Runtime): Promise<void> {
    const namespace = await freshNamespace(env().admin.client, `${options.name}-${runtime}`);
    const user = await userBoundTo(env(), `${options.name}-bundle-${runtime}-${namespace}`, options.rbac, namespace);
    // deno-fmt-ignore
    const p = new ControllerProcess(runtime, bundlePath, [
      '--kubeconfig', user.kubeconfigPath,
      '--namespace', namespace,
      '--leader-elect', '--leader-elect-namespace', namespace,
      '--metrics-bind-address', '127.0.0.1:0',
      '--health-probe-bind-address', '127.0.0.1:0',
      ...(typeof options.flags === 'function' ? options.flags(runtime) : options.flags ?? []),
    ]);
    running.push(p);
    const probes = await p.address('readyz');
    await eventually(`${runtime}: /readyz 200`, async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), {
      timeoutMs: 20_000,
      explain: () => [p.tail()],
    });

    await options.scenario({ runtime, admin: admin!, namespace, process: p });
    const lease = await admin!.api(LeaseResource, namespace).get('controller-leader-election-capm3');
    assert.ok(lease.spec?.holderIdentity, 'leader election used the Role of deploy/rbac.yaml');

    p.kill('SIGTERM');
    const exit = await p.exited;
    assert.is(exit.code, 0, `${runtime} exit code (log tail:\n${p.tail()})`);
    const bad = (level: string) => level === 'error' || (!options.warningsAllowed && level === 'warn');
    assert.not.ok(p.lines.some((l) => bad(l.level)), `no ${options.warningsAllowed ? 'error' : 'warning or error'} logged (log tail:\n${p.tail()})`);
  }

  test(options.titles.node, () => run('node'));
  test(options.titles.deno, () => run('deno'));
  test.run();
}
