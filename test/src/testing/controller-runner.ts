// One controller in the test process, as `runMain` runs it, but with credentials bound to exactly a
// controller's deploy/rbac.yaml (a missing permission fails with Forbidden, and shows in the log), an
// exact request counter and the reconcile counters of its registry. Every controller package's
// test/support.ts builds on this instead of wiring its own: the package says how to build its
// controller from the deps, the runner does the rest. Also the waits every controller test uses,
// whose timeouts report what the controllers running now logged.
import process from 'node:process';
import type { Client } from '@metal3-ts/generated';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { readClusterApi } from '@metal3-ts/shared/capi/read';
import { ClusterApiNotServedError } from '@metal3-ts/shared/capi/version';
import { realClock } from '@metal3-ts/shared/clock/clock';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { type Logger, newLogger } from '@metal3-ts/shared/log/logger';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import type { TestEnv } from '../envtest/env.ts';
import { userBoundTo } from '../envtest/rbac.ts';
import { type Eventually, eventuallyWith, settled as settledAfter } from './eventually.ts';

/** What a controller factory gets: `MainDeps` as runMain hands them, minus flags. */
export interface InProcessDeps {
  /** A WriteThroughClient over `informers`: reconciles read their own writes. */
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly registry: Registry;
  readonly events: EventRecorder;
  readonly log: Logger;
  /** Counts every request the controller sends: a client the factory makes itself (a workload ClusterCache) counts on it too. */
  readonly counter: RequestCounter;
}

/** Anything with the harness's run-until-aborted contract (a Controller, a manager runnable). */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /** Called once every runnable returned (a cache with nothing to run closes its connections here). */
  close?(): void | Promise<void>;
}

export interface RunnerOptions {
  /** Path of the controller's deploy/rbac.yaml: the test user is bound to exactly that. */
  readonly rbac: string;
  /** Prefix of the test user's name (a counter and the namespace are appended). */
  readonly user: string;
  /** The event recorder's component. */
  readonly component: string;
  /** Controller names (their metrics label) whose reconciles count. */
  readonly controllers: readonly string[];
  /** An environment variable that, set to 1, prints every log line at debug level (debugging a test). */
  readonly verboseEnv?: string;
  /** A client-side rate limit (requests per second, burst); none unless given. */
  readonly limit?: { readonly qps: number; readonly burst: number };
  /** Builds the controllers from the deps. */
  build(deps: InProcessDeps): Runnable | readonly Runnable[];
}

export interface RunningController {
  /** Every request the controller (informers, writes, events) sent. */
  readonly counter: RequestCounter;
  readonly registry: Registry;
  /** The controller's caches: a test waits until they hold an object, never for a fixed time. */
  readonly informers: InformerFactory;
  /** Reconciles finished so far by one controller (default: all of `controllers`), whatever their result. */
  reconciles(controller?: string): number;
  /** Reconciles that ended in an error (bad input must never be one). */
  errors(): number;
  /** Requests that changed something (everything but get/list/watch), optionally of one resource. */
  writes(resource?: string): number;
  /** Requests answered 409 (AlreadyExists or Conflict). */
  conflicts(): number;
  /** Warning and error log lines so far (a Forbidden from a missing permission shows here). */
  problems(): readonly string[];
  stop(): Promise<void>;
}

let users = 0;
/** Controllers running now: a timed-out wait reports what they logged. */
const live = new Set<RunningController>();
/** Warning and error lines of every controller this process started. */
const logged: string[] = [];

/** Every warning or error any controller of this test process logged so far. */
export function loggedProblems(): readonly string[] {
  return [...logged];
}

const RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;
const READS = new Set(['get', 'list', 'watch']);

/** Starts the controllers under a fresh user bound to `options.rbac`, caching only `namespace`; resolves once the caches synced. */
export async function startInProcess(env: TestEnv, namespace: string, options: RunnerOptions): Promise<RunningController> {
  const connection = await userBoundTo(env, `${options.user}-${++users}-${namespace}`, options.rbac, namespace);
  const counter = new RequestCounter();
  const registry = new Registry();
  // Through the user's kubeconfig file, as the controller process reads its credentials.
  const base = newClient(loadKubeConfigFile(connection.kubeconfigPath), { counter, registry, ...(options.limit ?? {}) });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: options.component });
  const lines: string[] = [];
  const verbose = options.verboseEnv !== undefined && process.env[options.verboseEnv] === '1';
  const log = newLogger({
    level: verbose ? 'debug' : 'warn',
    sink: (line) => {
      if (verbose) process.stderr.write(line + '\n');
      if (!verbose || /"level":"(warn|error)"/.test(line)) {
        lines.push(line);
        logged.push(line);
      }
    },
  });
  // As every entry's register does first (S-10): Cluster API's kinds at the version served. Asked
  // through a client of its own, so the discovery request is not among the controllers' counted ones.
  const discovery = newClient(loadKubeConfigFile(connection.kubeconfigPath));
  try {
    await readClusterApi({ client: discovery, informers, log, clock: realClock }, { attempts: 1 });
  } catch (error) {
    // An environment without Cluster API (a controller that reads none of its kinds): nothing to point.
    if (!(error instanceof ClusterApiNotServedError)) throw error;
  } finally {
    discovery.transport.close();
  }
  const built = options.build({ client, informers, registry, events, log, counter });
  const runnables: readonly Runnable[] = Array.isArray(built) ? built : [built as Runnable];
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), ...runnables.map((r) => r.start(stop.signal))]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  const counted = (results: readonly string[]) => (one?: string) =>
    (one ? [one] : options.controllers).reduce((n, controller) => n + results.reduce((m, result) => m + total.get({ controller, result }), 0), 0);
  const running: RunningController = {
    counter,
    registry,
    informers,
    reconciles: counted(RESULTS),
    errors: counted(['error']),
    writes: (resource) =>
      counter.snapshot().filter((c) => !READS.has(c.verb) && (resource === undefined || c.resource === resource)).reduce((n, c) => n + c.count, 0),
    conflicts: () => counter.count({ code: 409 }),
    problems: () => [...lines],
    async stop() {
      live.delete(running);
      stop.abort();
      await runs;
      for (const runnable of runnables) await runnable.close?.();
      await events.flush();
      base.transport.close();
    },
  };
  live.add(running);
  return running;
}

/** What the controllers running now logged: the `explain` of a wait whose timeout should say it. */
export const runningProblems = (): readonly string[] => [...live].flatMap((c) => c.problems());
const explain = runningProblems;

/** Polls `probe` until it returns something other than undefined (10 s unless told); a timeout reports what the controllers logged. */
export const eventually: Eventually = eventuallyWith({ timeoutMs: 10_000, explain });

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 400): Promise<void> {
  return settledAfter(controller, after, quietMs, { explain });
}
