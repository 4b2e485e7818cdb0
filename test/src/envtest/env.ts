// The test environment: etcd + a management kube-apiserver with all CRDs installed, plus workload
// apiservers on demand. startEnv() either returns a ready environment or cleans up everything it
// started and throws.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { type ApiServer, type AuthorizationMode, startApiServer } from './apiserver.ts';
import { type Binaries, ensureBinaries } from './binaries.ts';
import { type ConversionWebhook, startConversionWebhook, type StorageVersion, storageVersion, storingV1beta1, storingV1beta2 } from './conversion.ts';
import { type CrdSource, installCrds, loadAllCrds } from './crds.ts';
import { EnvtestError } from './errors.ts';
import { type Etcd, startEtcd } from './etcd.ts';
import type { Connection } from './kubeconfig.ts';
import { type Authorities, newAuthorities } from './pki.ts';
import { registerDirectory, removeDirectory, startWatchdog } from './processes.ts';
import {
  etcdPrefixOf,
  type LaunchedWorkload,
  launchWorkloadApiserver,
  type WorkloadCluster,
  workloadClusterFrom,
  type WorkloadClusterOptions,
} from './workload.ts';

export interface EnvOptions {
  /** RBAC (default) or AlwaysAllow; RBAC is what the controllers meet in production. */
  readonly authorization?: AuthorizationMode;
  /** Which CRDs to install (default: ours and upstream). */
  readonly crds?: { readonly ours?: boolean; readonly upstream?: boolean; readonly directory?: string } | false;
  /**
   * The version our CRDs store (default METAL3_TS_STORAGE, else v1beta2 as crds/*.yaml say). v1beta2:
   * both versions served, converting through this repository's conversion webhook, run beside the
   * apiserver when our CRDs are installed. v1beta1: as before the switch, v1beta2 not served.
   */
  readonly storage?: StorageVersion;
  /** Workload clusters to start right away (more can be started later). */
  readonly workloadClusters?: readonly string[];
  /** Per phase (etcd, apiserver, CRDs). Default 60 s: a loaded 2-core runner can be slow. */
  readonly timeoutMs?: number;
  /** Keep the directory (logs, kubeconfigs) after stop, for debugging. Also METAL3_TS_ENVTEST_KEEP=1. */
  readonly keepDir?: boolean;
  /** Progress messages (default: silent). */
  readonly log?: (message: string) => void;
}

export interface Timings {
  binariesMs: number;
  etcdMs: number;
  apiserverMs: number;
  crdsMs: number;
  totalMs: number;
}

export interface TestEnv {
  /** Temporary directory with logs, certificates and kubeconfigs; removed on stop. */
  readonly dir: string;
  readonly binaries: Binaries;
  readonly etcd: Etcd;
  readonly management: ApiServer;
  /** Admin (system:masters) on the management apiserver. */
  readonly admin: Connection;
  /** Path of the admin kubeconfig file. */
  readonly kubeconfigPath: string;
  readonly crds: readonly CrdSource[];
  /** The version our CRDs store, and the conversion webhook when that is v1beta2. */
  readonly storage: StorageVersion;
  readonly conversionWebhook: ConversionWebhook | undefined;
  readonly timings: Timings;
  readonly authorities: Authorities;
  /** Credentials for any user and groups on the management apiserver (client certificate, no RBAC granted). */
  user(name: string, groups?: readonly string[]): Connection;
  /** A bearer token for a ServiceAccount via the TokenRequest API (the ServiceAccount must exist). */
  serviceAccountToken(namespace: string, name: string, expirationSeconds?: number): Promise<string>;
  readonly workloadClusters: ReadonlyMap<string, WorkloadCluster>;
  /**
   * Starts a workload apiserver; `onKubeconfig` gets its kubeconfig before it is ready (workload.ts:
   * clients are held at its front door until it serves).
   */
  startWorkloadCluster(name: string, options?: WorkloadClusterOptions): Promise<WorkloadCluster>;
  /**
   * Starts a spare workload apiserver in the background (if none is waiting), which the next
   * startWorkloadCluster of a new name takes instead of starting one: the lab's cluster then has an
   * apiserver ready seconds earlier, before Cluster API first connects. Stopped with the environment.
   */
  warmWorkloadCluster(): void;
  /**
   * Stops a workload apiserver (e.g. to test an unreachable workload cluster). Its objects stay in
   * etcd: starting a cluster with the same name again brings them back, like a restarted control plane.
   */
  stopWorkloadCluster(name: string): Promise<void>;
  /**
   * Outages for chaos and restart tests: the management kube-apiserver, or etcd (every apiserver's
   * store), stopped for `downMs` and started again in place (same port, certificates and data).
   */
  restartApiServer(downMs: number): Promise<void>;
  restartEtcd(downMs: number): Promise<void>;
  /** Resident memory in bytes of each process, by name. */
  rss(): Record<string, number | undefined>;
  stop(): Promise<void>;
}

export async function startEnv(options: EnvOptions = {}): Promise<TestEnv> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 60_000;
  const keep = options.keepDir ?? process.env['METAL3_TS_ENVTEST_KEEP'] === '1';
  const timings: Timings = { binariesMs: 0, etcdMs: 0, apiserverMs: 0, crdsMs: 0, totalMs: 0 };

  let t = performance.now();
  const binaries = ensureBinaries();
  timings.binariesMs = performance.now() - t;

  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-envtest-'));
  if (!keep) registerDirectory(dir);
  const watchdog = startWatchdog(keep ? '/nonexistent' : dir);
  const authorities = newAuthorities();
  const workloads = new Map<string, WorkloadCluster>();
  /** The etcd prefix each workload name was served from: started again, a name gets its objects back. */
  const prefixes = new Map<string, string>();
  let spare: Promise<LaunchedWorkload | undefined> | undefined;
  let spares = 0;
  const spareApiservers = new Set<ApiServer>();
  let etcd: Etcd | undefined;
  let management: ApiServer | undefined;
  const storage = options.storage ?? storageVersion();
  let webhook: ConversionWebhook | undefined;
  let webhookStarting: Promise<ConversionWebhook> | undefined;
  const pids = () =>
    [
      etcd?.process.pid,
      management?.process.pid,
      webhook?.process.pid,
      ...[...workloads.values()].flatMap((w) => [w.apiserver.process.pid, ...[...w.etcdMembers.values()].map((m) => m.process.pid)]),
      ...[...spareApiservers].map((a) => a.process.pid),
    ].filter((p) => p !== undefined);

  const stop = async () => {
    // Apiservers first (they need etcd to shut down cleanly), in parallel: each takes about a second.
    const waiting = await spare;
    spare = undefined;
    const stopSpare = async () => {
      if (!waiting) return;
      await waiting.door.close();
      await (await waiting.starting.catch(() => undefined))?.stop();
      await waiting.nodeNetwork.close();
    };
    await Promise.all([...[...workloads.values()].map((w) => w.stop()), stopSpare(), management?.stop()]);
    await (webhook ?? (await webhookStarting?.catch(() => undefined)))?.stop();
    await etcd?.stop();
    watchdog.stop();
    if (!keep) removeDirectory(dir);
  };

  try {
    log(`envtest: directory ${dir}`);
    t = performance.now();
    etcd = await startEtcd({ binary: binaries.etcd, dir, timeoutMs });
    watchdog.update(pids());
    timings.etcdMs = performance.now() - t;
    log(`envtest: etcd ready at ${etcd.url} in ${Math.round(timings.etcdMs)} ms`);

    // Reading and checking the CRD files overlaps with the apiserver start.
    const crdsLoading = options.crds === false ? Promise.resolve([]) : loadAllCrds(options.crds ?? {});
    crdsLoading.catch(() => {});
    // So does the conversion webhook's, which must answer before our CRDs are installed.
    const oursInstalled = options.crds !== false && options.crds?.ours !== false;
    webhookStarting = storage === 'v1beta2' && oursInstalled ? startConversionWebhook(dir, authorities.servingCa, timeoutMs) : undefined;
    webhookStarting?.then((w) => {
      webhook = w;
      watchdog.update(pids());
    }, () => {});
    t = performance.now();
    management = await startApiServer({
      name: 'envtest',
      binary: binaries.kubeApiserver,
      etcdUrl: etcd.url,
      etcdPrefix: '/registry',
      authorities,
      dir: join(dir, 'management'),
      authorization: options.authorization ?? 'RBAC',
      timeoutMs,
      compaction: true,
    });
    watchdog.update(pids());
    timings.apiserverMs = performance.now() - t;
    log(`envtest: kube-apiserver ready at ${management.server} in ${Math.round(timings.apiserverMs)} ms`);

    t = performance.now();
    webhook = await webhookStarting;
    const loaded = await crdsLoading;
    const crds = webhook ? storingV1beta2(loaded, webhook.url, authorities.servingCa.certPem) : storage === 'v1beta1' ? storingV1beta1(loaded) : loaded;
    if (crds.length > 0) await installCrds(management.admin.client, crds, { timeoutMs });
    timings.crdsMs = performance.now() - t;
    log(`envtest: ${crds.length} CRDs established and discoverable in ${Math.round(timings.crdsMs)} ms`);

    const env: TestEnv = {
      dir,
      binaries,
      etcd,
      management,
      admin: management.admin,
      kubeconfigPath: management.admin.kubeconfigPath,
      crds,
      storage,
      conversionWebhook: webhook,
      timings,
      authorities,
      user: management.user,
      async serviceAccountToken(namespace, name, expirationSeconds = 3600) {
        const response = await management!.admin.client.create<{ status: { token: string } }>(
          `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
          { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
        );
        return response.status.token;
      },
      workloadClusters: workloads,
      async startWorkloadCluster(name, options = {}) {
        if (workloads.has(name)) throw new EnvtestError(`workload cluster ${name} already exists`);
        // A name served before keeps its prefix (its objects); a new one takes the spare, if any.
        const known = prefixes.get(name);
        const taken = known === undefined ? spare : undefined;
        if (taken) spare = undefined;
        let launched = await taken;
        launched ??= await launchWorkloadApiserver({ id: name, binary: binaries.kubeApiserver, etcdUrl: etcd!.url, authorities, dir, timeoutMs }, known);
        prefixes.set(name, launched.etcdPrefix);
        const members = { etcdBinary: binaries.etcd, timeoutMs, onProcesses: () => watchdog.update(pids()) };
        const cluster = await workloadClusterFrom(name, launched, members, options);
        for (const a of spareApiservers) if (a === cluster.apiserver) spareApiservers.delete(a);
        workloads.set(name, cluster);
        watchdog.update(pids());
        return cluster;
      },
      warmWorkloadCluster() {
        if (spare) return;
        const id = `spare-${++spares}`;
        prefixes.set(id, etcdPrefixOf(id));
        spare = launchWorkloadApiserver({ id, binary: binaries.kubeApiserver, etcdUrl: etcd!.url, authorities, dir, timeoutMs }).then(
          (launched) => {
            launched.starting.then((a) => {
              spareApiservers.add(a);
              watchdog.update(pids());
            }, () => {});
            return launched;
          },
          () => undefined,
        );
      },
      async stopWorkloadCluster(name) {
        const cluster = workloads.get(name);
        if (!cluster) throw new EnvtestError(`no workload cluster ${name}`);
        workloads.delete(name);
        await cluster.stop();
        watchdog.update(pids());
      },
      async restartApiServer(downMs) {
        try {
          await management!.restart(downMs);
        } finally {
          watchdog.update(pids());
        }
      },
      async restartEtcd(downMs) {
        try {
          await etcd!.restart(downMs);
        } finally {
          watchdog.update(pids());
        }
      },
      rss() {
        const out: Record<string, number | undefined> = { etcd: etcd!.process.rssBytes(), 'kube-apiserver': management!.process.rssBytes() };
        for (const [name, w] of workloads) out[`kube-apiserver (${name})`] = w.apiserver.process.rssBytes();
        return out;
      },
      stop,
    };
    await Promise.all((options.workloadClusters ?? []).map((name) => env.startWorkloadCluster(name)));
    timings.totalMs = performance.now() - started;
    return env;
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
