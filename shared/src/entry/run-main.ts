// The entry point every controller package's main.ts calls: flags and environment → config → client,
// informers, manager, event recorder → the package's register() → run until SIGTERM → exit code.
//
//   await runMain({
//     name: 'metal3machine-controller',
//     register({ manager, informers, registry, log, config }) {
//       manager.add(controllerFor('metal3machine', Metal3MachineResource, { informers, registry, log }).build(reconcile));
//     },
//   });
//
// Exit codes: 0 after a clean shutdown; 1 when something failed at run time (lost leadership,
// shutdown budget exceeded, a failed runnable, an unreachable kubeconfig); 2 for bad flags. After
// losing leadership the process exits rather than campaigning again, as controller-runtime does:
// the supervisor's restart gives a clean cache and a fresh candidate.
import process from 'node:process';
import type { Client } from '@metal3-ts/generated';
import { InformerFactory } from '../cache/informer-factory.ts';
import { WriteThroughClient } from '../cache/write-through.ts';
import { newClient } from '../client/client.ts';
import { type Clock, realClock } from '../clock/clock.ts';
import { EventRecorder } from '../events/recorder.ts';
import { leaseLock } from '../leader/lease-lock.ts';
import { type Logger, newLogger, type Sink } from '../log/logger.ts';
import { Manager } from '../manager/manager.ts';
import { nodeProcess, type ProcessPort, shutdownOnSignals } from '../manager/signals.ts';
import { Registry } from '../metrics/registry.ts';
import { registerProcessMetrics } from '../metrics/process.ts';
import { type ConfigSources, connectionFor, type ManagerConfig, managerFlags, parseArgs, type ParsedArgs, watchTimeoutsWithin } from './config.ts';
import { FlagError, type FlagSpecs, type FlagValues, HelpRequested, usage } from './flags.ts';

/** What register() receives: everything a controller needs, built from the config. */
export interface MainDeps<S extends FlagSpecs = Record<never, never>> {
  readonly name: string;
  readonly config: ManagerConfig;
  /** The controller package's own flags, parsed. */
  readonly flags: FlagValues<S>;
  /** Writes made through it update the informers' stores at once (read your own writes). */
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly manager: Manager;
  readonly registry: Registry;
  readonly log: Logger;
  readonly clock: Clock;
  /** Events reported as `name`. */
  readonly events: EventRecorder;
}

export interface MainOptions<S extends FlagSpecs = Record<never, never>> extends ConfigSources {
  /** The controller's name: logs, event reportingComponent, User-Agent. */
  readonly name: string;
  /** Default for `--leader-elect-id` (default `controller-leader-election-capm3`). */
  readonly leaderElectionId?: string;
  /** Flags of this controller beyond the common ones. */
  readonly flags?: S;
  /** Wires controllers into the manager. Runs before the manager starts. */
  register(deps: MainDeps<S>): void | Promise<void>;
  /** Default: process.argv.slice(2). */
  readonly argv?: readonly string[];
  /** Signals and exit; default the real process. */
  readonly process?: ProcessPort;
  /** Where logs and usage go; default stderr. */
  readonly sink?: Sink;
}

/** Runs the controller process and exits it (through the ProcessPort) with 0, 1 or 2. */
export async function runMain<S extends FlagSpecs = Record<never, never>>(options: MainOptions<S>): Promise<void> {
  const port = options.process ?? nodeProcess;
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const sources: ConfigSources = { env: options.env ?? process.env, ...pick(options, 'serviceAccountDir', 'home') };
  const code = await runToExitCode(options, sources, sink, port);
  port.exit(code);
}

async function runToExitCode<S extends FlagSpecs>(options: MainOptions<S>, sources: ConfigSources, sink: Sink, port: ProcessPort): Promise<number> {
  let parsed: ParsedArgs<S>;
  try {
    parsed = parseArgs(options.argv ?? process.argv.slice(2), {
      ...sources,
      ...pick(options, 'leaderElectionId'),
      ...(options.flags ? { extra: options.flags } : {}),
    });
  } catch (error) {
    const specs = { ...managerFlags(options.leaderElectionId), ...options.flags };
    if (error instanceof HelpRequested) {
      sink(`Usage of ${options.name}:\n${usage(specs)}`);
      return 0;
    }
    if (error instanceof FlagError) {
      sink(`${options.name}: ${error.message}\nRun with --help for the list of flags.`);
      return 2;
    }
    throw error;
  }
  const { config, flags } = parsed;
  const log = newLogger({ level: config.logLevel, sink });
  let built: ReturnType<typeof build<S>>;
  try {
    built = build(options.name, config, flags, sources, log);
  } catch (error) {
    log.error('cannot start', { error });
    return error instanceof FlagError ? 2 : 1;
  }
  const { deps } = built;
  const { manager, events } = deps;
  const shutdown = shutdownOnSignals(port, log);
  try {
    try {
      await options.register(deps);
    } catch (error) {
      // Before the manager ran (e.g. Cluster API not served, S-10): say so, not that it stopped.
      log.error('cannot register the controllers', { error });
      return 1;
    }
    log.info('starting manager', {
      name: options.name,
      namespace: config.namespace ?? '(all)',
      leaderElection: config.leaderElection ? `${config.leaderElection.namespace}/${config.leaderElection.id}` : false,
      identity: manager.identity,
    });
    await manager.start(shutdown.signal);
    return 0;
  } catch (error) {
    log.error('manager stopped with an error', { error });
    return 1;
  } finally {
    // Events recorded during shutdown get a moment to land, never more.
    await Promise.race([events.flush(), realClock.sleep(2000)]);
    built.close();
    shutdown.dispose();
  }
}

function build<S extends FlagSpecs>(
  name: string,
  config: ManagerConfig,
  flags: FlagValues<S>,
  sources: ConfigSources,
  log: Logger,
): { deps: MainDeps<S>; close(): void } {
  const registry = new Registry();
  registerProcessMetrics(registry);
  const clock = realClock;
  const connection = connectionFor(config, sources);
  const client = newClient(connection, {
    qps: config.kubeApiQps,
    burst: config.kubeApiBurst,
    registry,
    log,
    userAgent: name,
    deadlines: config.requestDeadlines,
  });
  const informers = new InformerFactory(client, {
    ...(config.namespace ? { namespace: config.namespace } : {}),
    log,
    clock,
    registry,
    watcher: { inactivityTimeoutMs: config.watchInactivityTimeoutMs, watchTimeoutSeconds: watchTimeoutsWithin(config.watchInactivityTimeoutMs) },
  });
  // Controllers write through this client, so their next reconcile reads their own writes.
  const writer = new WriteThroughClient(client.transport, informers);
  const election = config.leaderElection;
  // Its own client, as controller-runtime's: renewals neither queue behind the controllers' rate
  // limiter nor share their connections.
  const leaseClient = election ? newClient(connection, { registry, log, userAgent: `${name}/leader-election`, deadlines: config.requestDeadlines }) : undefined;
  const manager = new Manager({
    registry,
    log,
    clock,
    metricsBindAddress: config.metricsBindAddress,
    healthProbeBindAddress: config.healthProbeBindAddress,
    gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
    ...(election && leaseClient
      ? {
        leaderElection: {
          lock: leaseLock(leaseClient, election.namespace, election.id),
          leaseDurationMs: election.leaseDurationMs,
          renewDeadlineMs: election.renewDeadlineMs,
          retryPeriodMs: election.retryPeriodMs,
        },
      }
      : {}),
  });
  manager.add({ name: 'informers', needsLeaderElection: false, start: (signal) => informers.start(signal) });
  manager.addHealthCheck('ping', () => true);
  manager.addReadyCheck('ping', () => true);
  manager.addReadyCheck('informers', () => informers.readiness());
  const events = new EventRecorder({ client, component: name, ...(manager.identity ? { instance: manager.identity } : {}), log });
  const deps = { name, config, flags, client: writer, informers, manager, registry, log, clock, events };
  return { deps, close: () => [client, leaseClient].forEach((c) => c?.transport.close()) };
}

function pick<T extends object, K extends keyof T>(from: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}
