// Test-suite helpers: one environment per test process, shared by every suite (test file) that asks
// for it, and a fresh namespace per test.
//
// Sharing: run-tests.ts imports all test files into one process before running any, so the first
// sharedEnv() call starts the environment and later calls get the same one. withSharedEnv(suite)
// counts, at import time, how many suites will use it; the last one to finish stops it gracefully
// (so Node reaps its children). If a run dies halfway, the process-exit hook still kills everything.
//
// Namespaces: without a kube-controller-manager, a deleted namespace stays Terminating forever (no
// namespace controller empties it). So tests never wait for deletion; each gets a unique namespace and
// the whole etcd is thrown away at the end.
import { randomBytes } from 'node:crypto';
import process from 'node:process';
import { type EnvOptions, startEnv, type TestEnv } from './env.ts';
import type { ApiClient, KubeObject } from './http.ts';

/** The part of a uvu suite the helper needs (kept structural so it does not depend on uvu's types). */
export interface SuiteHooks {
  before(fn: () => unknown): void;
  after(fn: () => unknown): void;
}

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

let users = 0;

/**
 * Registers `suite` as a user of the shared environment: its `before` hook starts (or joins) it and
 * its `after` hook stops it when no registered suite is left to run. Returns a getter for use inside
 * tests. Call it at module top level, before suite.run().
 */
export function withSharedEnv(suite: SuiteHooks, options: EnvOptions = {}): () => TestEnv {
  let env: TestEnv | undefined;
  users++;
  suite.before(loggedHook('starting the shared test environment', async () => {
    env = await sharedEnv(options);
  }));
  suite.after(async () => {
    if (--users === 0) await stopSharedEnv();
  });
  return () => {
    if (!env) throw new Error('the shared test environment is not started (use it inside tests, not at import time)');
    return env;
  };
}

/**
 * A before hook that logs its own failure: uvu counts the suite's tests as failed but prints no
 * error when a before hook throws (run-tests.ts only knows that they did not run).
 */
export function loggedHook(what: string, fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (error) {
      console.error(`  ✘ before hook failed, ${what}: ${(error as Error)?.stack ?? String(error)}`);
      throw error;
    }
  };
}

const beforeStop: (() => Promise<void>)[] = [];

/**
 * Runs `fn` when the shared environment stops, before it does: for processes that live on it (the
 * real Cluster API managers) and would otherwise spend their last seconds retrying a gone apiserver.
 */
export function beforeSharedEnvStops(fn: () => Promise<void>): void {
  beforeStop.push(fn);
}

export async function stopSharedEnv(): Promise<void> {
  const env = shared;
  shared = undefined;
  for (const fn of beforeStop.splice(0)) await fn().catch(() => {});
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
