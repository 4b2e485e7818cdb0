// The flags every metal3-ts controller takes (CAPM3's names and defaults where it has them: QPS 20,
// burst 30, leader election off, metrics on :8080, probes on :9440) and how they, plus the
// environment, become a typed ManagerConfig and a Connection to the apiserver.
import { type Connection, defaultRequestDeadlines, type RequestDeadlines } from '@metal3-ts/generated';
import { defaultKubeConfigPath, inClusterConnection, inClusterNamespace, KubeConfigError, loadKubeConfigFile } from '../client/kubeconfig.ts';
import { defaultLeaseTimings, validateTimings } from '../leader/lease-record.ts';
import type { Level } from '../log/logger.ts';
import { parseBindAddress } from '../manager/http-server.ts';
import { flag, FlagError, type FlagSpecs, type FlagValues, parseFlags } from './flags.ts';

/** CAPM3's Lease name (research capm3-behavior.md F-4); each controller package may choose its own. */
export const DEFAULT_LEADER_ELECTION_ID = 'controller-leader-election-capm3';

/**
 * A watch silent this long is presumed dead, whatever its connection claims: HTTP/1.1 has no ping to
 * find out sooner. 55 s keeps a black-holed connection's cost under a minute (issue 21's bound).
 */
export const DEFAULT_WATCH_INACTIVITY_MS = 55_000;

/**
 * The server-side timeout range of each watch for a given inactivity timeout: below it, so a healthy
 * quiet watch always hears from the apiserver in time (a bookmark 2 s before its timeout, then its
 * end). The apiserver's own bookmarks come only once a minute, which alone would need more than 60 s
 * of silence before a watch could be called dead. The cost is one cheap re-watch from the last
 * resourceVersion per informer every 40–50 s (at the default).
 */
export function watchTimeoutsWithin(inactivityMs: number): { readonly min: number; readonly max: number } {
  const margin = Math.min(5_000, inactivityMs / 4);
  const max = Math.max(1, Math.floor((inactivityMs - margin) / 1000));
  return { min: Math.max(1, Math.ceil(max * 0.8)), max };
}

export type Env = Readonly<Record<string, string | undefined>>;

export function managerFlags(leaderElectionId: string = DEFAULT_LEADER_ELECTION_ID) {
  return {
    kubeconfig: flag.optionalString('Path to a kubeconfig file (default: $KUBECONFIG, else in-cluster, else ~/.kube/config)'),
    context: flag.optionalString('Kubeconfig context to use instead of its current-context'),
    namespace: flag.optionalString('Watch and cache only this namespace (default: all namespaces)'),
    concurrency: flag.int(10, 'Objects reconciled in parallel per controller', { min: 1 }),
    'kube-api-qps': flag.float(
      20,
      'Maximum queries per second to the apiserver for each resource kind (each kind has its own bucket, as in controller-runtime); <= 0 turns the client-side limit off',
    ),
    'kube-api-burst': flag.int(30, "Maximum burst of queries to the apiserver for each resource kind (each kind's bucket holds this many)", { min: 0 }),
    'kube-api-timeout': flag.duration(
      defaultRequestDeadlines.default,
      'Deadline of one request to the apiserver (a watch: until its response starts); a connection that misses it is dropped; 0 turns it off',
    ),
    'kube-api-list-timeout': flag.duration(defaultRequestDeadlines['list'] ?? 60_000, 'Deadline of one list page; 0 turns it off'),
    'watch-inactivity-timeout': flag.duration(
      DEFAULT_WATCH_INACTIVITY_MS,
      'A watch silent this long is presumed dead and reopened; each watch asks the apiserver to end it a little sooner',
      { min: 1000 },
    ),
    'leader-elect': flag.bool(false, 'Run controllers only while holding the leader-election Lease'),
    'leader-elect-id': flag.string(leaderElectionId, 'Name of the leader-election Lease'),
    'leader-elect-namespace': flag.optionalString("Namespace of the Lease (default: --namespace, $POD_NAMESPACE, or the pod's own namespace)"),
    'leader-elect-lease-duration': flag.duration(defaultLeaseTimings.leaseDurationMs, 'How long followers wait before taking over an unrenewed Lease', {
      min: 1000,
    }),
    'leader-elect-renew-deadline': flag.duration(defaultLeaseTimings.renewDeadlineMs, 'How long the leader retries renewing before giving leadership up'),
    'leader-elect-retry-period': flag.duration(defaultLeaseTimings.retryPeriodMs, 'Interval between attempts to acquire or renew the Lease'),
    'metrics-bind-address': flag.string(':8080', 'Address serving /metrics; 0 turns it off'),
    'health-probe-bind-address': flag.string(':9440', 'Address serving /healthz and /readyz; 0 turns it off'),
    'graceful-shutdown-timeout': flag.duration(30_000, 'How long shutdown waits for in-flight reconciles'),
    'log-level': flag.oneOf(['debug', 'info', 'warn', 'error'] as const, 'info', 'Lowest level logged'),
    'watch-filter': flag.optionalString('Only reconcile objects labelled cluster.x-k8s.io/watch-filter=<value>'),
  } satisfies FlagSpecs;
}

export type ManagerFlags = ReturnType<typeof managerFlags>;

export interface LeaderElectionConfig {
  readonly id: string;
  readonly namespace: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface ManagerConfig {
  /** The kubeconfig file chosen (flag, $KUBECONFIG or ~/.kube/config); undefined means in-cluster. */
  readonly kubeconfig: string | undefined;
  /** Where the kubeconfig choice came from, for error messages. */
  readonly kubeconfigSource: '--kubeconfig' | 'KUBECONFIG' | '~/.kube/config' | 'in-cluster';
  readonly context: string | undefined;
  readonly namespace: string | undefined;
  readonly concurrency: number;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** Per-verb deadline of one request (`--kube-api-timeout`, `--kube-api-list-timeout`). */
  readonly requestDeadlines: RequestDeadlines;
  /** Silence after which an informer's watch is reopened (`--watch-inactivity-timeout`). */
  readonly watchInactivityTimeoutMs: number;
  /** Undefined when `--leader-elect` is off. */
  readonly leaderElection: LeaderElectionConfig | undefined;
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly gracefulShutdownTimeoutMs: number;
  readonly logLevel: Level;
  readonly watchFilter: string | undefined;
}

export interface ParsedArgs<S extends FlagSpecs> {
  readonly config: ManagerConfig;
  /** The controller's own flags. */
  readonly flags: FlagValues<S>;
}

export interface ConfigSources {
  readonly env?: Env;
  /** Where the ServiceAccount is mounted (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
  readonly home?: string;
}

/**
 * Parses the common flags plus the controller's own (`extra`, which must not reuse a common name)
 * and checks them together. Throws FlagError (naming the flag) or HelpRequested.
 */
export function parseArgs<S extends FlagSpecs>(
  argv: readonly string[],
  options: { extra?: S; leaderElectionId?: string } & ConfigSources = {},
): ParsedArgs<S> {
  const common = managerFlags(options.leaderElectionId);
  const extra = (options.extra ?? {}) as S;
  for (const name of Object.keys(extra)) if (name in common) throw new Error(`controller flag --${name} clashes with a common flag`);
  // One pass over argv for both sets, so flags may come in any order.
  const parsed: Record<string, unknown> = parseFlags<FlagSpecs>({ ...common, ...extra }, argv);
  const all = parsed as FlagValues<ManagerFlags>;
  const env = options.env ?? {};

  for (const name of ['metrics-bind-address', 'health-probe-bind-address'] as const) {
    try {
      parseBindAddress(all[name]);
    } catch (error) {
      throw new FlagError(`--${name}`, (error as Error).message);
    }
  }
  let leaderElection: LeaderElectionConfig | undefined;
  if (all['leader-elect']) {
    const timings = {
      leaseDurationMs: all['leader-elect-lease-duration'],
      renewDeadlineMs: all['leader-elect-renew-deadline'],
      retryPeriodMs: all['leader-elect-retry-period'],
    };
    try {
      validateTimings(timings);
    } catch (error) {
      throw new FlagError('--leader-elect-lease-duration/--leader-elect-renew-deadline/--leader-elect-retry-period', (error as Error).message);
    }
    const namespace = all['leader-elect-namespace'] ?? all.namespace ?? (env['POD_NAMESPACE'] || undefined) ?? inClusterNamespace(options.serviceAccountDir);
    if (!namespace) {
      throw new FlagError(
        '--leader-elect-namespace',
        'the Lease needs a namespace: set --leader-elect-namespace (or --namespace, or $POD_NAMESPACE); it is only found automatically inside a pod',
      );
    }
    if (!all['leader-elect-id']) throw new FlagError('--leader-elect-id', 'must not be empty');
    leaderElection = { id: all['leader-elect-id'], namespace, ...timings };
  }

  const config: ManagerConfig = {
    ...chooseKubeconfig(all.kubeconfig, env, options.home),
    context: all.context,
    namespace: all.namespace,
    concurrency: all.concurrency,
    kubeApiQps: all['kube-api-qps'],
    kubeApiBurst: all['kube-api-burst'],
    requestDeadlines: { default: all['kube-api-timeout'], list: all['kube-api-list-timeout'] },
    watchInactivityTimeoutMs: all['watch-inactivity-timeout'],
    leaderElection,
    metricsBindAddress: all['metrics-bind-address'],
    healthProbeBindAddress: all['health-probe-bind-address'],
    gracefulShutdownTimeoutMs: all['graceful-shutdown-timeout'],
    logLevel: all['log-level'],
    watchFilter: all['watch-filter'],
  };
  const flags = Object.fromEntries(Object.keys(extra).map((k) => [k, parsed[k]])) as FlagValues<S>;
  return { config, flags };
}

/**
 * controller-runtime's order: `--kubeconfig`, then $KUBECONFIG, then in-cluster (undefined here),
 * then ~/.kube/config.
 */
function chooseKubeconfig(fromFlag: string | undefined, env: Env, home: string | undefined): Pick<ManagerConfig, 'kubeconfig' | 'kubeconfigSource'> {
  if (fromFlag) return { kubeconfig: fromFlag, kubeconfigSource: '--kubeconfig' };
  if (env['KUBECONFIG']) return { kubeconfig: defaultKubeConfigPath(env, home), kubeconfigSource: 'KUBECONFIG' };
  if (env['KUBERNETES_SERVICE_HOST']) return { kubeconfig: undefined, kubeconfigSource: 'in-cluster' };
  const fallback = defaultKubeConfigPath({}, home);
  return fallback ? { kubeconfig: fallback, kubeconfigSource: '~/.kube/config' } : { kubeconfig: undefined, kubeconfigSource: 'in-cluster' };
}

/** Opens the Connection the config names; errors say which flag or variable led there. */
export function connectionFor(config: ManagerConfig, sources: ConfigSources = {}): Connection {
  if (config.kubeconfig === undefined) {
    const env = sources.env ?? {};
    if (!env['KUBERNETES_SERVICE_HOST']) {
      throw new FlagError('--kubeconfig', 'no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or run inside a pod');
    }
    return inClusterConnection({ env, ...(sources.serviceAccountDir ? { serviceAccountDir: sources.serviceAccountDir } : {}) });
  }
  try {
    return loadKubeConfigFile(config.kubeconfig, config.context);
  } catch (error) {
    if (error instanceof KubeConfigError) {
      throw new FlagError(config.kubeconfigSource === '--kubeconfig' ? '--kubeconfig' : config.kubeconfigSource, error.message);
    }
    throw error;
  }
}
