// The Metal3DataClaim controller in the test process, as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml (a missing permission fails with Forbidden), an exact request counter and
// the reconcile counters; plus fixtures (objects as the Metal3Machine controller and users make them)
// and pollers.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { ClusterResource, newCluster, type Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
  type Metal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { newLogger } from '@metal3-ts/shared/log/logger';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { dataClaimController, type DataClaimControllerConfig } from '../src/controller.ts';
import { CONTROLLER_NAME, METAL3_MACHINE_FINALIZER } from '../src/names.ts';
import { eventually as pollUntil, settled as settledAfter } from '@metal3-ts/test/testing/eventually';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export interface RunningController {
  /** Every request the controller (informers, writes, events) sent. */
  readonly counter: RequestCounter;
  /** Reconciles finished so far, whatever their result. */
  reconciles(): number;
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
const live = new Set<RunningController>();
const logged: string[] = [];

/** Every warning or error any controller of this test process logged so far. */
export function loggedProblems(): readonly string[] {
  return [...logged];
}

/** Starts the controller under a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startDataClaimController(env: TestEnv, namespace: string, config: DataClaimControllerConfig = {}): Promise<RunningController> {
  const connection = await userBoundTo(env, `dataclaim-controller-${++users}-${namespace}`, RBAC_MANIFEST, namespace);
  const counter = new RequestCounter();
  const registry = new Registry();
  const base = newClient(loadKubeConfigFile(connection.kubeconfigPath), { counter, registry });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: 'metal3-ts-dataclaim' });
  const lines: string[] = [];
  // DATACLAIM_TEST_LOG=1 prints everything the controller logs (for debugging a test).
  const verbose = process.env.DATACLAIM_TEST_LOG === '1';
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
  const controller = dataClaimController({ client, informers, registry, events, log, config: { concurrency: 4, ...config } });
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), controller.start(stop.signal)]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  const running: RunningController = {
    counter,
    errors: () => total.get({ controller: CONTROLLER_NAME, result: 'error' }),
    reconciles: () => ['success', 'error', 'requeue', 'requeue_after'].reduce((n, result) => n + total.get({ controller: CONTROLLER_NAME, result }), 0),
    writes: (resource) =>
      counter.snapshot().filter((c) => !['get', 'list', 'watch'].includes(c.verb) && (resource === undefined || c.resource === resource)).reduce((n, c) => n + c.count, 0),
    conflicts: () => counter.count({ code: 409 }),
    problems: () => [...lines],
    async stop() {
      live.delete(running);
      stop.abort();
      await runs;
      await events.flush();
      base.transport.close();
    },
  };
  live.add(running);
  return running;
}

export function createCluster(client: Client, namespace: string, name = 'cluster', paused = false): Promise<Cluster> {
  return client.api(ClusterResource, namespace).create(newCluster({ metadata: { name }, spec: paused ? { paused: true } : {} }));
}

export function createTemplate(client: Client, namespace: string, name: string, options: { clusterName?: string; templateReference?: string } = {}): Promise<Metal3DataTemplate> {
  return client.api(Metal3DataTemplateResource, namespace).create(
    newMetal3DataTemplate({
      metadata: { name },
      spec: { clusterName: options.clusterName ?? 'cluster', ...(options.templateReference ? { templateReference: options.templateReference } : {}) },
    }),
  );
}

const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

export interface ClaimOptions {
  readonly labels?: Record<string, string>;
  /** Leave out the Metal3Machine owner reference (and the machine). */
  readonly noOwner?: boolean;
  readonly templateNamespace?: string;
}

/** A Metal3Machine and its claim, as the Metal3Machine controller makes them (M-35, DC-1). */
export async function createClaim(client: Client, namespace: string, name: string, template: string, options: ClaimOptions = {}): Promise<{ machine?: Metal3Machine; claim: Metal3DataClaim }> {
  const labels = options.labels ?? { 'cluster.x-k8s.io/cluster-name': 'cluster' };
  const machine = options.noOwner
    ? undefined
    : await client.api(Metal3MachineResource, namespace).create(newMetal3Machine({ metadata: { name, labels }, spec: { image, dataTemplate: { name: template, namespace } } }));
  const claim = await client.api(Metal3DataClaimResource, namespace).create(
    newMetal3DataClaim({
      metadata: {
        name,
        labels,
        finalizers: [METAL3_MACHINE_FINALIZER],
        ...(machine
          ? { ownerReferences: [{ apiVersion: machine.apiVersion, kind: 'Metal3Machine', name, uid: machine.metadata.uid ?? '', controller: true }] }
          : {}),
      },
      spec: { template: { name: template, namespace: options.templateNamespace ?? namespace } },
    }),
  );
  return { ...(machine ? { machine } : {}), claim };
}

/** What the Metal3Machine controller does on deletion (DC-4): its finalizer off, then Delete. */
export async function deleteClaimAsMachineController(client: Client, namespace: string, name: string): Promise<void> {
  const api = client.api(Metal3DataClaimResource, namespace);
  const claim = await api.get(name);
  const index = claim.metadata.finalizers?.indexOf(METAL3_MACHINE_FINALIZER) ?? -1;
  if (index >= 0) await api.jsonPatch(name, [{ op: 'test', path: `/metadata/finalizers/${index}`, value: METAL3_MACHINE_FINALIZER }, { op: 'remove', path: `/metadata/finalizers/${index}` }]);
  // Already deleting, with only the M3M finalizer left: removing it was the end of the claim.
  await api.delete(name).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}

export async function getClaim(client: Client, namespace: string, name: string): Promise<Metal3DataClaim | undefined> {
  const list = await client.api(Metal3DataClaimResource, namespace).list();
  return list.items.find((c) => c.metadata.name === name);
}

export async function listData(client: Client, namespace: string): Promise<Metal3Data[]> {
  return (await client.api(Metal3DataResource, namespace).list()).items;
}

/** claim name → the name its status.renderedData gives (only bound claims). */
export async function boundClaims(client: Client, namespace: string): Promise<Record<string, string>> {
  const list = await client.api(Metal3DataClaimResource, namespace).list();
  return Object.fromEntries(list.items.filter((c) => c.status?.renderedData?.name).map((c) => [c.metadata.name ?? '', c.status!.renderedData!.name ?? '']));
}

/** Waits until every named claim is bound; returns claim → Metal3Data name. */
export function claimsBound(client: Client, namespace: string, names: readonly string[], timeoutMs?: number): Promise<Record<string, string>> {
  return eventually(
    `${names.length} claims bound`,
    async () => {
      const bound = await boundClaims(client, namespace);
      return names.every((n) => bound[n]) ? bound : undefined;
    },
    timeoutMs,
  );
}

export { sleep } from '@metal3-ts/test/testing/eventually';

/** Polls `probe` until it returns something other than undefined; a timeout reports what the controllers logged. */
export function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  return pollUntil(what, probe, { timeoutMs, explain: () => [...live].flatMap((c) => c.problems()) });
}

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 400): Promise<void> {
  return settledAfter(controller, after, quietMs, { explain: () => [...live].flatMap((c) => c.problems()) });
}
