// The Metal3DataClaim controller in the test process through the shared runner
// (@metal3-ts/test/testing/controller-runner: as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml, an exact request counter and the reconcile counters); plus fixtures
// (objects as the Metal3Machine controller and users make them) and pollers.
import { fileURLToPath } from 'node:url';
import type { Client } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Cluster, ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3DataTemplate,
  Metal3DataTemplateResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { eventually, type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { type ControllerSuite, controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { dataClaimController, type DataClaimControllerConfig } from '../src/controller.ts';
import { CONTROLLER_NAME, METAL3_MACHINE_FINALIZER } from '../src/names.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));

export { eventually, loggedProblems, type RunningController, settled } from '@metal3-ts/test/testing/controller-runner';
export { sleep } from '@metal3-ts/test/testing/eventually';

/** Starts the controller under a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export function startDataClaimController(env: TestEnv, namespace: string, config: DataClaimControllerConfig = {}): Promise<RunningController> {
  return startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'dataclaim-controller',
    component: 'metal3-ts-dataclaim',
    controllers: [CONTROLLER_NAME],
    // DATACLAIM_TEST_LOG=1 prints everything the controller logs (for debugging a test).
    verboseEnv: 'DATACLAIM_TEST_LOG',
    build: (deps) => dataClaimController({ ...deps, config: { concurrency: 4, ...config } }),
  });
}

/** A dataclaim test file's suite: the shared hooks, plus a namespace with a controller of its own. */
export interface DataClaimSuite extends ControllerSuite<RunningController> {
  /** A fresh namespace named from `prefix` with a controller started for it (stopped after the test); returns the namespace. */
  setup(prefix: string): Promise<string>;
  /** The controller the last `setup` started (inside tests only). */
  controller(): RunningController;
}

export function dataClaimSuite(title: string): DataClaimSuite {
  const s = controllerSuite<RunningController>(title);
  let controller: RunningController | undefined;
  return {
    ...s,
    async setup(prefix) {
      const ns = await s.namespace(prefix);
      controller = s.track(await startDataClaimController(s.env(), ns));
      return ns;
    },
    controller: () => {
      if (!controller) throw new Error('no controller: setup() starts one');
      return controller;
    },
  };
}

export function createCluster(client: Client, namespace: string, name = 'cluster', paused = false): Promise<Cluster> {
  return client.api(ClusterResource, namespace).create(newCluster({ metadata: { name }, spec: paused ? { paused: true } : {} }));
}

export function createTemplate(
  client: Client,
  namespace: string,
  name: string,
  options: { clusterName?: string; templateReference?: string } = {},
): Promise<Metal3DataTemplate> {
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
export async function createClaim(
  client: Client,
  namespace: string,
  name: string,
  template: string,
  options: ClaimOptions = {},
): Promise<{ machine?: Metal3Machine; claim: Metal3DataClaim }> {
  const labels = options.labels ?? { 'cluster.x-k8s.io/cluster-name': 'cluster' };
  const machine = options.noOwner ? undefined : await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({ metadata: { name, labels }, spec: { image, dataTemplate: { name: template, namespace } } }),
  );
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
  if (index >= 0) {
    await api.jsonPatch(name, [{ op: 'test', path: `/metadata/finalizers/${index}`, value: METAL3_MACHINE_FINALIZER }, {
      op: 'remove',
      path: `/metadata/finalizers/${index}`,
    }]);
  }
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
