// Test-suite helpers: one environment per test process, shared by every suite (test file) that asks
// for it, and a fresh namespace per test.
//
// Sharing: run-tests.ts imports all test files into one process, so the first sharedEnv() call starts
// the environment and later calls get the same one. It is torn down by the process-exit hook (the runner
// ends with process.exit), or earlier by stopSharedEnv().
//
// Namespaces: without a kube-controller-manager, a deleted namespace stays Terminating forever (no
// namespace controller empties it). So tests never wait for deletion; each gets a unique namespace and
// the whole etcd is thrown away at the end.
import { randomBytes } from 'node:crypto';
import process from 'node:process';
import { startEnv, type EnvOptions, type TestEnv } from './env.ts';
import type { ApiClient, KubeObject } from './http.ts';

let shared: Promise<TestEnv> | undefined;

/** The process-wide environment (RBAC, all CRDs), started on first use. */
export function sharedEnv(options: EnvOptions = {}): Promise<TestEnv> {
  shared ??= startEnv({
    log: process.env['METAL3_TS_ENVTEST_VERBOSE'] === '1' ? (m) => console.error(m) : undefined,
    ...options,
  });
  // Let a failed start be retried by the next suite instead of caching the rejection.
  shared.catch(() => (shared = undefined));
  return shared;
}

export async function stopSharedEnv(): Promise<void> {
  const env = shared;
  shared = undefined;
  if (env) await (await env).stop();
}

/**
 * Creates a namespace with a unique name (`<prefix>-<random>`, a valid DNS label) and returns its name.
 * It is labelled so a human can find test namespaces in a kept environment.
 */
export async function freshNamespace(client: ApiClient, prefix = 'test'): Promise<string> {
  const base = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '').slice(0, 50) || 'test';
  const name = `${base}-${randomBytes(4).toString('hex')}`;
  await client.create<KubeObject>('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'metal3-ts.dev/envtest': 'true' } },
  });
  return name;
}
