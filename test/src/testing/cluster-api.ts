// The real Cluster API managers (core, kubeadm bootstrap, kubeadm control plane) for controller tests:
// one set per test process, on the shared test environment, started by the first suite that asks and
// stopped just before the environment stops. Not per suite: once they run, the Cluster API CRDs convert
// through their webhooks, so a later suite writing a Cluster or Machine needs them still serving.
//
// The release is CAPI_VERSION when set (one of CAPI_VERSIONS), else the newest, as in the e2e tests.
import process from 'node:process';
import { type ClusterApi, startClusterAPI } from '../capi/managers.ts';
import { CAPI_VERSIONS } from '../envtest/capi-binaries.ts';
import type { TestEnv } from '../envtest/env.ts';
import { beforeSharedEnvStops, loggedHook, type SuiteHooks } from '../envtest/suite.ts';

/** The release the tests run: `CAPI_VERSION`, else the newest built one. */
export function clusterApiVersion(value: string | undefined = process.env['CAPI_VERSION']): string {
  if (!value) return CAPI_VERSIONS[0]!;
  if (!CAPI_VERSIONS.includes(value)) throw new Error(`CAPI_VERSION must be one of ${CAPI_VERSIONS.join(', ')}, got "${value}"`);
  return value;
}

let shared: Promise<ClusterApi> | undefined;

/** The process-wide managers on `env` (the shared environment), started on first use. */
export function sharedClusterApi(env: TestEnv): Promise<ClusterApi> {
  if (!shared) {
    const version = clusterApiVersion();
    // Once more after a failure (a manager not ready in time on a loaded runner): every suite of the
    // process that needs Cluster API would otherwise fail, each without a test having run.
    const starting = startClusterAPI(env, { version }).catch((error: Error) => {
      console.error(`  the real Cluster API ${version} did not start (${error.message}); starting it once more`);
      return startClusterAPI(env, { version });
    });
    shared = starting;
    // A failed start may be retried by the next suite; a started one stops with the environment.
    starting.then(
      () => beforeSharedEnvStops(async () => (await starting).stop()),
      () => (shared = undefined),
    );
  }
  return shared;
}

/**
 * Registers `suite` as a user of the real Cluster API on the shared environment `env` (the getter of
 * withSharedEnv, registered first). Returns a getter for use inside tests.
 */
export function withSharedClusterApi(suite: SuiteHooks, env: () => TestEnv): () => ClusterApi {
  let capi: ClusterApi | undefined;
  suite.before(loggedHook(`starting the real Cluster API ${clusterApiVersion()}`, async () => {
    capi = await sharedClusterApi(env());
  }));
  return () => {
    if (!capi) throw new Error('the real Cluster API is not started (use it inside tests, not at import time)');
    return capi;
  };
}
