// The Metal3Cluster controller in the test process through the shared runner
// (@metal3-ts/test/testing/controller-runner: as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml, an exact request counter and the reconcile counters); beside the real
// Cluster API managers (one set per test process, testing/cluster-api.ts), fixtures real Cluster API
// admits, and pollers.
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { type Event, EventResource } from '@metal3-ts/generated/core/v1';
import { type Cluster, ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Cluster,
  Metal3ClusterResource,
  type Metal3ClusterSpec,
  newMetal3Cluster,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { type ControllerSuite, controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { objectGone, objectWhen } from '@metal3-ts/test/testing/objects';
import { type ClusterControllerConfig, CONTROLLER_NAME, metal3ClusterController } from '../src/controller.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export { eventually, type RunningController, settled } from '@metal3-ts/test/testing/controller-runner';

/** Starts the controller as a fresh user bound to deploy/rbac.yaml (or `rbac`), caching only `namespace`. */
export function startClusterController(
  env: TestEnv,
  namespace: string,
  config: ClusterControllerConfig = {},
  rbac = RBAC_MANIFEST,
): Promise<RunningController> {
  return startInProcess(env, namespace, {
    rbac,
    user: 'cluster-controller',
    component: 'metal3-ts-cluster',
    controllers: [CONTROLLER_NAME],
    // CLUSTER_TEST_LOG=1 prints everything the controller logs (for debugging a test).
    verboseEnv: 'CLUSTER_TEST_LOG',
    // A long requeue: the tests show that watches, not polling, move things along.
    build: (deps) => metal3ClusterController({ ...deps, config: { concurrency: 2, requeueAfterMs: 120_000, ...config } }),
  });
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

/** Polls the Metal3Cluster until `check` accepts it. */
export function metal3ClusterWhen(
  client: Client,
  namespace: string,
  name: string,
  what: string,
  check: (m: Metal3Cluster) => boolean,
  timeoutMs = 10_000,
): Promise<Metal3Cluster> {
  return objectWhen(client, Metal3ClusterResource, namespace, name, what, check, timeoutMs);
}

/** Resolves once `name` is gone (404). */
export function gone<T extends KubeObject>(
  client: Client,
  descriptor: ResourceDescriptor<T>,
  namespace: string,
  name: string,
  timeoutMs = 10_000,
): Promise<true> {
  return objectGone(client, descriptor, namespace, name, timeoutMs);
}

/** Events of `reason` about object `name` in `namespace`. */
export async function eventsFor(client: Client, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.api(EventResource, namespace).list();
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

/**
 * A suite of Metal3Cluster tests beside the real Cluster API (its Cluster controller adopts the
 * Metal3Cluster and copies its endpoint and failure domains back); each controller a test started,
 * once stopped, sent no forbidden request and had no failed reconcile.
 */
export function clusterSuite(title: string): ControllerSuite<RunningController> {
  return controllerSuite<RunningController>(title, {
    clusterApi: true,
    afterStop(controller) {
      assert.is(controller.counter.count({ code: 403 }), 0, 'no request was forbidden by deploy/rbac.yaml');
      assert.is(controller.errors(), 0, 'no reconcile failed: findings are conditions, not errors');
    },
  });
}
