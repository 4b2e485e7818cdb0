// The Metal3Machine controller in the test process, as main.ts runs it but with credentials bound to
// exactly deploy/rbac.yaml (a missing permission fails with Forbidden), an exact request counter and
// the reconcile counters; the simulated rest of the world (BMO, Cluster API Cluster and Machine,
// bootstrap, workload clusters); and a scene builder (Cluster + Metal3Cluster, hosts with BMC
// Secrets, Machine + Metal3Machine pairs) with pollers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Transport, type KubeObject, type ResourceDescriptor } from '@metal3-ts/generated';
import { EventResource, NodeResource, SecretResource, newSecret, type Event, type Node } from '@metal3-ts/generated/core/v1';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { ClusterResource, MachineResource, newCluster, newMachine, type Cluster, type Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3MachineResource,
  newMetal3Cluster,
  newMetal3Machine,
  type Metal3Machine,
  type Metal3MachineSpec,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource, type BareMetalHost, type BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { loadKubeConfigFile } from '@metal3-ts/shared/client/kubeconfig';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { RandomIndex } from '@metal3-ts/shared/host/selection';
import { newLogger } from '@metal3-ts/shared/log/logger';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { bmoSimulator, simulatedHost, type BmoOptions } from '@metal3-ts/test/sim/bmo/index';
import { clusterSimulator } from '@metal3-ts/test/sim/capi/cluster';
import { machineSimulator } from '@metal3-ts/test/sim/capi/machine';
import { simulatorDeps, startSimulators, type RunningSimulators } from '@metal3-ts/test/sim/simulator';
import { workloadSimulator, type ProviderIdMode } from '@metal3-ts/test/sim/workload/index';
import { eventually as pollUntil, settled as settledAfter } from '@metal3-ts/test/testing/eventually';
import { metal3MachineController, type MachineControllerConfig } from '../src/controller.ts';
import { CONTROLLER_NAME } from '../src/names.ts';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
/** A kubeadm join cloud-config whose kubelet labels the Node `metal3.io/uuid={{ ds.meta_data.uuid }}` (seed 000). */
export const JOIN_CLOUD_CONFIG = readFileSync(new URL('../../../test/src/sim/workload/testdata/capbk-join.yaml', import.meta.url), 'utf8');

export interface RunningController {
  readonly counter: RequestCounter;
  readonly client: Client;
  /** Reconciles finished so far, whatever their result. */
  reconciles(): number;
  /** Reconciles that ended in an error (bad input must never loop as one). */
  errors(): number;
  /** Requests that changed something (everything but get/list/watch), optionally of one resource. */
  writes(resource?: string): number;
  /** Warning and error log lines so far (a Forbidden from a missing permission shows here). */
  problems(): readonly string[];
  stop(): Promise<void>;
}

let users = 0;
const live = new Set<RunningController>();

export interface StartOptions extends MachineControllerConfig {
  readonly random?: RandomIndex;
}

/** Starts the controller as a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startMachineController(env: TestEnv, namespace: string, options: StartOptions = {}): Promise<RunningController> {
  const connection = await userBoundTo(env, `machine-controller-${++users}-${namespace}`, RBAC_MANIFEST, namespace);
  const counter = new RequestCounter();
  const registry = new Registry();
  const base = newClient(loadKubeConfigFile(connection.kubeconfigPath), { counter, registry });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const events = new EventRecorder({ client: base, component: 'metal3-ts-machine' });
  const lines: string[] = [];
  const log = newLogger({ level: 'warn', sink: (line) => lines.push(line) });
  const clusterCache = new ClusterCache(client, { closeGraceMs: 50, probeTimeoutMs: 3_000, counter });
  const { random, ...config } = options;
  // A long safety-net requeue: the tests show that watches, not polling, move things along.
  const controller = metal3MachineController({
    client,
    informers,
    registry,
    events,
    log,
    workloadClient: (cluster) => clusterCache.get(cluster),
    ...(random ? { random } : {}),
    config: { concurrency: 4, requeueAfterMs: 120_000, nodePollMs: 200, ...config },
  });
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), controller.start(stop.signal)]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  const count = (results: string[]) => results.reduce((n, result) => n + total.get({ controller: CONTROLLER_NAME, result }), 0);
  const running: RunningController = {
    counter,
    client,
    reconciles: () => count(['success', 'error', 'requeue', 'requeue_after']),
    errors: () => count(['error']),
    writes: (resource) =>
      counter.snapshot().filter((c) => !['get', 'list', 'watch'].includes(c.verb) && (resource === undefined || c.resource === resource)).reduce((n, c) => n + c.count, 0),
    problems: () => [...lines],
    async stop() {
      live.delete(running);
      stop.abort();
      await runs;
      await events.flush();
      clusterCache.close();
      base.transport.close();
    },
  };
  live.add(running);
  return running;
}

export interface WorldOptions {
  readonly bmo?: BmoOptions;
  /** How joining Nodes get their providerID (default: left for us). */
  readonly providerIdMode?: ProviderIdMode;
  /** Run the workload-cluster simulator (default true). */
  readonly workload?: boolean;
}

/** The simulated world around the controller: BMO, Cluster API Cluster and Machine, workload clusters. */
export async function startWorld(env: TestEnv, namespace: string, options: WorldOptions = {}): Promise<RunningSimulators> {
  const deps = simulatorDeps(env.admin);
  return startSimulators(deps, [
    ...bmoSimulator(deps, options.bmo ?? {}),
    ...clusterSimulator(deps),
    ...machineSimulator(deps),
    ...(options.workload === false ? [] : workloadSimulator(deps, { env, namespace, retryAfterMs: 100, ...(options.providerIdMode ? { mode: options.providerIdMode } : {}) })),
  ]);
}

export const adminClient = (env: TestEnv): Client => new Client(Transport.fromConnection(env.admin));

export const CLUSTER = 'test1';
export const BOOTSTRAP_SECRET = 'bootstrap-data';
export const IMAGE = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', checksumType: 'sha256' as const, format: 'raw' as const };

export interface ClusterSceneOptions {
  readonly name?: string;
  /** Metal3Cluster cloud-provider flags (default: no cloud provider, so the node-label path runs). */
  readonly cloudProvider?: boolean;
  readonly paused?: boolean;
}

/**
 * A Cluster with its Metal3Cluster marked ready (the cluster controller's job, not under test here),
 * and the bootstrap data Secret machines name in `dataSecretName`.
 */
export async function createClusterScene(client: Client, namespace: string, options: ClusterSceneOptions = {}): Promise<Cluster> {
  const name = options.name ?? CLUSTER;
  const cloud = options.cloudProvider ?? false;
  await client.api(Metal3ClusterResource, namespace).create(
    newMetal3Cluster({ metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': name } }, spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: cloud, noCloudProvider: !cloud } }),
  );
  await client.api(Metal3ClusterResource, namespace).mergePatchStatus(name, { status: { ready: true } });
  await client.api(SecretResource, namespace).create(
    newSecret({ metadata: { name: BOOTSTRAP_SECRET, labels: { 'cluster.x-k8s.io/cluster-name': name } }, type: 'cluster.x-k8s.io/secret', stringData: { value: JOIN_CLOUD_CONFIG, format: 'cloud-config' } }),
  ).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  const cluster = await client.api(ClusterResource, namespace).create(
    newCluster({
      metadata: { name },
      spec: { ...(options.paused ? { paused: true } : {}), infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name } },
    }),
  );
  await eventually('the Cluster infrastructure ready', async () => ((await client.api(ClusterResource, namespace).get(name)).status?.infrastructureReady ? true : undefined));
  return cluster;
}

/** Hosts the simulated BMO registers, inspects and makes available, each with its BMC Secret. */
export async function createHosts(client: Client, namespace: string, names: readonly string[], options: { labels?: Record<string, string>; annotations?: Record<string, string>; spec?: Partial<BareMetalHostSpec> } = {}): Promise<BareMetalHost[]> {
  const hosts: BareMetalHost[] = [];
  for (const name of names) {
    const { host, secret } = simulatedHost(name, { namespace, ...options });
    await client.api(SecretResource, namespace).create(secret);
    hosts.push(await client.api(BareMetalHostResource, namespace).create(host));
  }
  return hosts;
}

export interface MachineOptions {
  readonly cluster?: string;
  readonly spec?: Metal3MachineSpec;
  /** Extra labels of both objects (e.g. `cluster.x-k8s.io/control-plane`). */
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly machineOwners?: Machine['metadata']['ownerReferences'];
  /** Default: `dataSecretName: bootstrap-data`. */
  readonly bootstrap?: NonNullable<Machine['spec']>['bootstrap'];
  readonly failureDomain?: string;
}

/** A Metal3Machine `name` and its Cluster API Machine `name`; the Machine simulator adopts the former. */
export async function createMachine(client: Client, namespace: string, name: string, options: MachineOptions = {}): Promise<{ machine: Machine; metal3Machine: Metal3Machine }> {
  const cluster = options.cluster ?? CLUSTER;
  const labels = { 'cluster.x-k8s.io/cluster-name': cluster, ...(options.labels ?? {}) };
  const metal3Machine = await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({ metadata: { name, labels, ...(options.annotations ? { annotations: options.annotations } : {}) }, spec: options.spec ?? { image: IMAGE } }),
  );
  const machine = await client.api(MachineResource, namespace).create(
    newMachine({
      metadata: { name, labels, ...(options.machineOwners ? { ownerReferences: options.machineOwners } : {}) },
      spec: {
        clusterName: cluster,
        bootstrap: options.bootstrap ?? { dataSecretName: BOOTSTRAP_SECRET },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
        ...(options.failureDomain ? { failureDomain: options.failureDomain } : {}),
      },
    }),
  );
  return { machine, metal3Machine };
}

export { sleep } from '@metal3-ts/test/testing/eventually';

/** Polls `probe` until it returns something other than undefined; a timeout reports what the controllers logged. */
export function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  return pollUntil(what, probe, { timeoutMs, explain: () => [...live].flatMap((c) => c.problems()) });
}

/** Waits until the controller finished more reconciles than `after` and then stayed quiet for `quietMs`. */
export function settled(controller: { reconciles(): number }, after: number, quietMs = 500): Promise<void> {
  return settledAfter(controller, after, quietMs, { explain: () => [...live].flatMap((c) => c.problems()) });
}

/** Polls the object until `check` accepts it. */
export function when<T extends KubeObject>(client: Client, descriptor: ResourceDescriptor<T>, namespace: string, name: string, what: string, check: (o: T) => boolean, timeoutMs?: number): Promise<T> {
  return eventually(what, async () => {
    try {
      const o = await client.api(descriptor, namespace).get(name);
      return check(o) ? o : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }, timeoutMs);
}

export const metal3MachineWhen = (client: Client, namespace: string, name: string, what: string, check: (m: Metal3Machine) => boolean, timeoutMs?: number) =>
  when(client, Metal3MachineResource, namespace, name, what, check, timeoutMs);

export const hostWhen = (client: Client, namespace: string, name: string, what: string, check: (h: BareMetalHost) => boolean, timeoutMs?: number) =>
  when(client, BareMetalHostResource, namespace, name, what, check, timeoutMs);

/** Resolves once `name` is gone (404). */
export function gone<T extends KubeObject>(client: Client, descriptor: ResourceDescriptor<T>, namespace: string, name: string, timeoutMs?: number): Promise<true> {
  return eventually(`${descriptor.kind} ${name} gone`, async () => {
    try {
      await client.api(descriptor, namespace).get(name);
      return undefined;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }, timeoutMs);
}

/** The workload cluster's Nodes, through the same kind of client the controller uses. */
export async function workloadNodes(client: Client, namespace: string, cluster = CLUSTER): Promise<Node[]> {
  const cache = new ClusterCache(client, { closeGraceMs: 50 });
  try {
    const workload = await cache.get({ namespace, name: cluster });
    return (await workload.api(NodeResource).list()).items;
  } finally {
    cache.close();
  }
}

/** `status/reason/severity` of a v1beta1 condition, `-` when absent. */
export function v1(obj: Metal3Machine, type: string): string {
  const c = getCondition(obj, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}` : '-';
}

/** `status/reason` of a v1beta2 condition, `-` when absent. */
export function v2(obj: Metal3Machine, type: string): string {
  const c = getV1Beta2Condition(obj, type);
  return c ? `${c.status}/${c.reason}` : '-';
}

/** Events of `reason` about object `name`. */
export async function eventsFor(client: Client, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.api(EventResource, namespace).list();
  return list.items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

/** The hosts of `namespace` whose consumerRef names each Metal3Machine, by Metal3Machine name. */
export async function consumers(client: Client, namespace: string): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  for (const host of (await client.api(BareMetalHostResource, namespace).list()).items) {
    const name = host.spec?.consumerRef?.name;
    if (name) map.set(name, [...(map.get(name) ?? []), host.metadata.name ?? '']);
  }
  return map;
}
