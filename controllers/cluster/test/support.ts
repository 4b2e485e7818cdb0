// The Metal3Cluster controller in the test process, as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml (a missing permission fails with Forbidden) and an exact request counter;
// plus the CAPI Cluster simulator, fixtures and pollers.
import { fileURLToPath } from 'node:url';
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { EventResource, type Event } from '@metal3-ts/generated/core/v1';
import { ClusterResource, newCluster, type Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { Metal3ClusterResource, newMetal3Cluster, type Metal3Cluster, type Metal3ClusterSpec } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { CONTROLLER_NAME, metal3ClusterController, type ClusterControllerConfig } from '../src/controller.ts';
import { eventually as pollUntil, settled as settledAfter } from '@metal3-ts/test/testing/eventually';
import { objectGone, objectWhen } from '@metal3-ts/test/testing/objects';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export interface RunningController {
  readonly counter: RequestCounter;
  /** Reconciles finished so far, whatever their result. */
  reconciles(): number;
  /** Reconciles that ended in an error (bad input must never be one). */
  errors(): number;
  /** Requests that changed something (everything but get/list/watch), optionally of one resource. */
  writes(resource?: string): number;
  stop(): Promise<void>;
}

let users = 0;

/** Starts the controller as a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startClusterController(env: TestEnv, namespace: string, config: ClusterControllerConfig = {}): Promise<RunningController> {
  const user = await userBoundTo(env, `cluster-controller-${++users}-${namespace}`, RBAC_MANIFEST, namespace);
  // envtest's Connection names the client certificate certPem/keyPem; the typed client's Transport
  // reads clientCertPem/clientKeyPem and would otherwise connect as system:anonymous.
  const connection = { ...user, ...(user.certPem ? { clientCertPem: user.certPem } : {}), ...(user.keyPem ? { clientKeyPem: user.keyPem } : {}) };
  const counter = new RequestCounter();
  const registry = new Registry();
  const base = newClient(connection, { counter, registry });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: 'metal3-ts-cluster' });
  // A long requeue: the tests show that watches, not polling, move things along.
  const controller = metal3ClusterController({ client, informers, registry, events, config: { concurrency: 2, requeueAfterMs: 120_000, ...config } });
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), controller.start(stop.signal)]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  return {
    counter,
    errors: () => total.get({ controller: CONTROLLER_NAME, result: 'error' }),
    reconciles: () => ['success', 'error', 'requeue', 'requeue_after'].reduce((n, result) => n + total.get({ controller: CONTROLLER_NAME, result }), 0),
    writes: (resource) =>
      counter.snapshot().filter((c) => !['get', 'list', 'watch'].includes(c.verb) && (resource === undefined || c.resource === resource)).reduce((n, c) => n + c.count, 0),
    async stop() {
      stop.abort();
      await runs;
      await events.flush();
      base.transport.close();
    },
  };
}

export const ENDPOINT = { host: '192.168.111.249', port: 6443 };

export function createMetal3Cluster(
  client: Client,
  namespace: string,
  name: string,
  spec: Metal3ClusterSpec = { controlPlaneEndpoint: ENDPOINT },
  metadata: Partial<Metal3Cluster['metadata']> = {},
): Promise<Metal3Cluster> {
  return client.api(Metal3ClusterResource, namespace).create(newMetal3Cluster({ metadata: { name, ...metadata }, spec }));
}

/** A CAPI Cluster whose infrastructureRef names the Metal3Cluster `infra` (default: same name). */
export function createCluster(client: Client, namespace: string, name: string, options: { infra?: string; paused?: boolean } = {}): Promise<Cluster> {
  return client.api(ClusterResource, namespace).create(
    newCluster({
      metadata: { name },
      spec: {
        infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: options.infra ?? name },
        ...(options.paused !== undefined ? { paused: options.paused } : {}),
      },
    }),
  );
}

/** `status/reason/severity` of a v1beta1 condition, `-` when absent. */
export function v1(obj: Metal3Cluster | Cluster, type: string): string {
  const c = getCondition(obj, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}` : '-';
}

/** `status/reason` of a v1beta2 condition, `-` when absent. */
export function v2(obj: Metal3Cluster, type: string): string {
  const c = getV1Beta2Condition(obj, type);
  return c ? `${c.status}/${c.reason}` : '-';
}

export { sleep } from '@metal3-ts/test/testing/eventually';

/** Polls `probe` until it returns something other than undefined. */
export function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  return pollUntil(what, probe, { timeoutMs });
}

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 400): Promise<void> {
  return settledAfter(controller, after, quietMs);
}

/** Polls the Metal3Cluster until `check` accepts it. */
export function metal3ClusterWhen(client: Client, namespace: string, name: string, what: string, check: (m: Metal3Cluster) => boolean, timeoutMs = 10_000): Promise<Metal3Cluster> {
  return objectWhen(client, Metal3ClusterResource, namespace, name, what, check, timeoutMs);
}

/** Resolves once `name` is gone (404). */
export function gone<T extends KubeObject>(client: Client, descriptor: ResourceDescriptor<T>, namespace: string, name: string, timeoutMs = 10_000): Promise<true> {
  return objectGone(client, descriptor, namespace, name, timeoutMs);
}

/** Events of `reason` about object `name` in `namespace`. */
export async function eventsFor(client: Client, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.api(EventResource, namespace).list();
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}
