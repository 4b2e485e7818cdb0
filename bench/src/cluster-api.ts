// The real Cluster API (core, kubeadm bootstrap, kubeadm control plane) the Metal3Machine scenes run
// beside: one set of managers per benchmark run, started by the first scene that needs it and stopped
// before the environment. One set, not one per scene: the managers watch every namespace, and once they
// serve the conversion webhooks every later Cluster or Machine write goes through them.
//
// The release is `--capi <version>`, else CAPI_VERSION, else the newest built here (v1.13.5); an
// unknown release is an error naming the option and the releases known.
import process from 'node:process';
import { type ClusterApi, startClusterAPI } from '@metal3-ts/test/capi/managers';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { clusterApiVersion } from '@metal3-ts/test/testing/cluster-api';
import { cpuSeconds } from './proc-stat.ts';

let running: Promise<ClusterApi> | undefined;

/** The release asked for on the command line (`--capi v1.10.10`) or in CAPI_VERSION, else the newest. */
export function benchCapiVersion(argv: readonly string[] = process.argv): string {
  const at = argv.indexOf('--capi');
  if (at < 0) return clusterApiVersion(process.env['CAPI_VERSION']);
  const value = argv[at + 1] ?? '';
  if (!CAPI_VERSIONS.includes(value)) throw new Error(`--capi must be one of ${CAPI_VERSIONS.join(', ')}, got "${value}"`);
  return value;
}

/** The run's managers on `env`, started on first use (a failed start is retried by the next caller). */
export function benchClusterApi(env: TestEnv): Promise<ClusterApi> {
  if (!running) {
    const starting = startClusterAPI(env, { version: benchCapiVersion() });
    running = starting;
    starting.catch(() => (running = undefined));
  }
  return running;
}

/** Stops the managers if a scene started them (call before the environment stops). */
export async function stopBenchClusterApi(): Promise<void> {
  const starting = running;
  running = undefined;
  if (starting) await (await starting.catch(() => undefined))?.stop();
}

/** CPU seconds the three managers have used so far (user + system), so a scene can say what Cluster API cost it. */
export function clusterApiCpuSeconds(capi: ClusterApi): number {
  return Object.values(capi.managers).reduce((total, manager) => total + cpuSeconds(manager.process.pid), 0);
}
