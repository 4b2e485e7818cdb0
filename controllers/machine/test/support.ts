// The Metal3Machine controller in the test process through the shared runner (credentials bound to
// exactly deploy/rbac.yaml, an exact request counter, the reconcile counters), with its ClusterCache;
// the rest of the world: the REAL Cluster API managers (core, kubeadm bootstrap and control plane;
// one set per test process, testing/cluster-api.ts) and the simulated BMO and workload clusters,
// where nothing real can run; a scene builder (Cluster + Metal3Cluster, hosts with BMC Secrets,
// Machine + Metal3Machine pairs); machineTestScene, the hooks every real-apiserver file shares;
// and (re-exported from readers.ts) the pollers and readers of the cluster state.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { newSecret, type Node, NodeResource, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Cluster, ClusterResource, type Machine, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  type Metal3Data,
  type Metal3DataClaim,
  Metal3DataResource,
  type Metal3Machine,
  Metal3MachineResource,
  type Metal3MachineSpec,
  newMetal3Cluster,
  newMetal3Data,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource, type BareMetalHostSpec } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { RandomIndex } from '@metal3-ts/baremetal/selection';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import type { ClusterApi } from '@metal3-ts/test/capi/managers';
import { withSharedClusterApi } from '@metal3-ts/test/testing/cluster-api';
import { workloadNodes as readWorkloadNodes } from '@metal3-ts/test/testing/workload';
import { type RunningController as InProcessController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { type BmoOptions, bmoSimulator, simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { type ProviderIdMode, workloadSimulator } from '@metal3-ts/test/sim/workload/index';
import { type MachineControllerConfig, metal3MachineController } from '../src/controller.ts';
import { CONTROLLER_NAME } from '../src/names.ts';
import { eventually } from './readers.ts';

// The label and annotation strings the tests check are the ones the code uses: tests import them from
// ../src/names.ts (METAL3_MACHINE_FINALIZER, HOST_ANNOTATION, CLUSTER_NAME_LABEL, …) and
// @metal3-ts/baremetal/names (PAUSED_ANNOTATION, the host's, CAPM3_PAUSE_VALUE, STATUS_ANNOTATION,
// NODE_REUSE_LABEL, …). Cluster API's own pause annotation is named apart from the host's:
export { CAPI_PAUSED_ANNOTATION } from '@metal3-ts/shared/meta/cluster-api-names';

/** Far below the test controller's 120 s safety-net requeue: a step this fast was woken by an event. */
export const EVENT_MS = 20_000;
/** Long enough for a machine to get its host provisioned and its Node, still well under that safety net. */
export const PROVISION_MS = 30_000;
/** A finalizer of the tests' own, to hold an object in deletion. */
export const HOLD_FINALIZER = 'test.metal3-ts.dev/hold';
/** A host label a test gives each host so that each machine selects the one host meant for it. */
export const SLOT_LABEL = 'test.metal3-ts.dev/slot';

export const RBAC_MANIFEST = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
/** A kubeadm join cloud-config whose kubelet labels the Node `metal3.io/uuid={{ ds.meta_data.uuid }}` (seed 000). */
export const JOIN_CLOUD_CONFIG = readFileSync(new URL('../../../test/src/sim/workload/testdata/capbk-join.yaml', import.meta.url), 'utf8');

export interface RunningController extends InProcessController {
  /** `controller_runtime_reconcile_errors_total{controller="metal3machine"}`, as /metrics shows it. */
  reconcileErrorsTotal(): number;
}

export interface StartOptions extends MachineControllerConfig {
  readonly random?: RandomIndex;
}

/** Starts the controller through the shared runner as a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startMachineController(env: TestEnv, namespace: string, options: StartOptions = {}): Promise<RunningController> {
  const { random, ...config } = options;
  const running = await startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'machine-controller',
    component: 'metal3-ts-machine',
    controllers: [CONTROLLER_NAME],
    build: (deps) => {
      const clusterCache = new ClusterCache(deps.client, { closeGraceMs: 50, probeTimeoutMs: 3_000, counter: deps.counter });
      // A long safety-net requeue: the tests show that watches, not polling, move things along.
      const controller = metal3MachineController({
        ...deps,
        workloadClient: (cluster) => clusterCache.get(cluster),
        ...(random ? { random } : {}),
        config: { concurrency: 4, requeueAfterMs: 120_000, nodePollMs: 200, ...config },
      });
      // The cache has nothing to run: it closes once the controller stopped.
      return [controller, { start: () => Promise.resolve(), close: () => clusterCache.close() }];
    },
  });
  let stopped: Promise<void> | undefined;
  return {
    ...running,
    reconcileErrorsTotal: () => running.registry.counter('controller_runtime_reconcile_errors_total', '', ['controller']).get({ controller: CONTROLLER_NAME }),
    // A second call waits for the first (the scene stops what a test may have stopped already).
    stop: () => (stopped ??= running.stop()),
  };
}

export interface WorldOptions {
  readonly bmo?: BmoOptions;
  /** How joining Nodes get their providerID (default: left for us). */
  readonly providerIdMode?: ProviderIdMode;
  /** Run the workload-cluster simulator (default true). */
  readonly workload?: boolean;
  /** Time from a host provisioned to its kubelet's Node registering (default 0). */
  readonly joinDelayMs?: number;
}

/**
 * The simulated part of the world around the controller: BMO and the workload clusters (with their
 * kubelets). Cluster API is the real one, running for the whole process (machineTestScene).
 */
export function startWorld(env: TestEnv, namespace: string, options: WorldOptions = {}): Promise<RunningSimulators> {
  const deps = simulatorDeps(env.admin);
  return startSimulators(deps, [
    ...bmoSimulator(deps, options.bmo ?? {}),
    ...(options.workload === false ? [] : workloadSimulator(deps, {
      env,
      namespace,
      retryAfterMs: 100,
      ...(options.providerIdMode ? { mode: options.providerIdMode } : {}),
      ...(options.joinDelayMs ? { joinDelayMs: options.joinDelayMs } : {}),
    })),
  ]);
}

export const adminClient = (env: TestEnv): Client => new Client(Transport.fromConnection(env.admin));

export const CLUSTER = 'test1';
export const BOOTSTRAP_SECRET = 'bootstrap-data';
export const IMAGE = {
  url: 'http://172.22.0.1/images/node.img',
  checksum: 'http://172.22.0.1/images/node.img.sha256sum',
  checksumType: 'sha256' as const,
  format: 'raw' as const,
};

export interface ClusterSceneOptions {
  readonly name?: string;
  /** Metal3Cluster cloud-provider flags (default: no cloud provider, so the node-label path runs). */
  readonly cloudProvider?: boolean;
  readonly paused?: boolean;
  /**
   * The workload-cluster simulator runs: wait until the Cluster's workload apiserver answers before
   * the infrastructure is ready (below). Default false.
   */
  readonly workload?: boolean;
}

/**
 * A Cluster with its Metal3Cluster marked ready (the cluster controller's job, not under test here),
 * and the bootstrap data Secret machines name in `dataSecretName`; resolves once Cluster API reports
 * the infrastructure ready. The order matters with the real Cluster API: its ClusterCache first
 * connects once the infrastructure is provisioned and, when that try fails (a workload apiserver
 * still starting), tries again only 30 s later. So with a workload cluster the Metal3Cluster is made
 * ready only once its apiserver answers; a paused Cluster is not waited for (Cluster API leaves it).
 */
export async function createClusterScene(client: Client, namespace: string, options: ClusterSceneOptions = {}): Promise<Cluster> {
  const name = options.name ?? CLUSTER;
  const cloud = options.cloudProvider ?? false;
  await client.api(Metal3ClusterResource, namespace).create(
    newMetal3Cluster({
      metadata: { name, labels: { 'cluster.x-k8s.io/cluster-name': name } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: cloud, noCloudProvider: !cloud },
    }),
  );
  await client.api(SecretResource, namespace).create(
    newSecret({
      metadata: { name: BOOTSTRAP_SECRET, labels: { 'cluster.x-k8s.io/cluster-name': name } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: JOIN_CLOUD_CONFIG, format: 'cloud-config' },
    }),
  ).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  const cluster = await client.api(ClusterResource, namespace).create(
    newCluster({
      metadata: { name },
      spec: { ...(options.paused ? { paused: true } : {}), infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name } },
    }),
  );
  if (options.workload) {
    await eventually(`the workload cluster of ${name} answering`, () => readWorkloadNodes(client, { namespace, name }), PROVISION_MS);
  }
  await client.api(Metal3ClusterResource, namespace).mergePatchStatus(name, { status: { ready: true } });
  if (options.paused) return cluster;
  await eventually(
    'the Cluster infrastructure ready',
    async () => ((await client.api(ClusterResource, namespace).get(name)).status?.infrastructureReady ? true : undefined),
    PROVISION_MS,
  );
  return cluster;
}

export interface HostOptions {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly spec?: Partial<BareMetalHostSpec>;
}

/** Hosts the simulated BMO registers, inspects and makes available, each with its BMC Secret. */
export async function createHosts(client: Client, namespace: string, names: readonly string[], options: HostOptions = {}): Promise<BareMetalHost[]> {
  const hosts: BareMetalHost[] = [];
  for (const name of names) {
    const { host, secret } = simulatedHost(name, { namespace, ...options });
    await client.api(SecretResource, namespace).create(secret);
    hosts.push(await client.api(BareMetalHostResource, namespace).create(host));
  }
  return hosts;
}

/** Host names, or host names with each host's own labels. */
export type HostList = readonly string[] | Readonly<Record<string, Record<string, string>>>;

/**
 * Creates the hosts in order (`options` for every one, each host's own labels over `options.labels`)
 * and waits, in one poll of the list, until BMO made every one available.
 * Returns them as they are then, in the order given.
 */
export async function createAvailableHosts(
  client: Client,
  namespace: string,
  hosts: HostList,
  options: HostOptions = {},
  timeoutMs = 30_000,
): Promise<BareMetalHost[]> {
  const entries: [string, Record<string, string>][] = Array.isArray(hosts) ? (hosts as readonly string[]).map((name) => [name, {}]) : Object.entries(hosts);
  for (const [name, own] of entries) {
    const labels = { ...options.labels, ...own };
    await createHosts(client, namespace, [name], { ...options, ...(Object.keys(labels).length > 0 ? { labels } : {}) });
  }
  const names = entries.map(([name]) => name);
  return eventually(names.length === 1 ? `${names[0]} available` : `${names.length} hosts available (${names.join(', ')})`, async () => {
    const byName = new Map((await client.api(BareMetalHostResource, namespace).list()).items.map((h) => [h.metadata.name ?? '', h]));
    const waiting = names.filter((name) => byName.get(name)?.status?.provisioning?.state !== 'available');
    if (waiting.length > 0) {
      throw new Error(`not available yet: ${waiting.map((name) => `${name} (${byName.get(name)?.status?.provisioning?.state ?? 'missing'})`).join(', ')}`);
    }
    return names.map((name) => byName.get(name)!);
  }, timeoutMs);
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

/** A Metal3Machine `name` and its Cluster API Machine `name`; Cluster API's Machine controller adopts the former. */
export async function createMachine(
  client: Client,
  namespace: string,
  name: string,
  options: MachineOptions = {},
): Promise<{ machine: Machine; metal3Machine: Metal3Machine }> {
  const cluster = options.cluster ?? CLUSTER;
  const labels = { 'cluster.x-k8s.io/cluster-name': cluster, ...(options.labels ?? {}) };
  const metal3Machine = await client.api(Metal3MachineResource, namespace).create(
    newMetal3Machine({
      metadata: { name, labels, ...(options.annotations ? { annotations: options.annotations } : {}) },
      spec: options.spec ?? { image: IMAGE },
    }),
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

/**
 * The Metal3Data a template controller makes for `claim` (DT-13): `<template>-0`, labelled like the
 * claim, owned by the claim and by the Metal3Machine (M-6: the latter is what wakes the machine),
 * naming `<claim>-metadata` / `<claim>-networkdata`. Not ready: the test says when it is rendered.
 * No template or data controller runs in these tests; they play both.
 */
export function createMetal3Data(client: Client, claim: Readonly<Metal3DataClaim>, m3m: Readonly<Metal3Machine>, template = 'tmpl'): Promise<Metal3Data> {
  const namespace = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  return client.api(Metal3DataResource, namespace).create(
    newMetal3Data({
      metadata: {
        name: `${template}-0`,
        labels: { ...(claim.metadata.labels ?? {}) },
        ownerReferences: [
          { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3DataClaim', name, uid: claim.metadata.uid ?? '' },
          { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: m3m.metadata.name ?? '', uid: m3m.metadata.uid ?? '' },
        ],
      },
      spec: {
        index: 0,
        template: { name: template, namespace },
        claim: { name, namespace },
        metaData: { name: `${name}-metadata`, namespace },
        networkData: { name: `${name}-networkdata`, namespace },
      },
    }),
  );
}

export * from './readers.ts';

/** The workload cluster's Nodes, through the same kind of client the controller uses. */
export const workloadNodes = (client: Client, namespace: string, cluster = CLUSTER): Promise<Node[]> => readWorkloadNodes(client, { namespace, name: cluster });

/** The Node API of the workload cluster of `cluster` through `cache`, once the cluster is reachable. */
export async function workloadNodeApi(cache: ClusterCache, namespace: string, timeoutMs?: number, cluster = CLUSTER) {
  const workload = await eventually('the workload cluster reachable', () => cache.get({ namespace, name: cluster }), timeoutMs);
  return workload.api(NodeResource);
}

/** Polls the workload Node `name` until `check` accepts it. */
export async function workloadNodeWhen(
  cache: ClusterCache,
  namespace: string,
  name: string,
  what: string,
  check: (n: Node) => boolean,
  timeoutMs?: number,
): Promise<Node> {
  const api = await workloadNodeApi(cache, namespace, timeoutMs);
  return eventually(what, async () => {
    const node = await api.get(name);
    return check(node) ? node : undefined;
  }, timeoutMs);
}

/** The part of a uvu suite the scene needs. */
interface SuiteHooks {
  before(fn: () => unknown): void;
  after(fn: () => unknown): void;
}

export interface SceneOptions {
  /** Prefix of the file's fresh namespace. */
  readonly prefix: string;
  /** Hosts made before the controller starts, which starts once every one is available. */
  readonly hosts?: HostList;
  /** Options of every host of `hosts`. */
  readonly hostOptions?: HostOptions;
  /** How long the hosts may take to become available (default 30 s). */
  readonly hostsTimeoutMs?: number;
  readonly world?: WorldOptions;
  /** The Cluster and its Metal3Cluster (createClusterScene with these options); false: none. */
  readonly cluster?: ClusterSceneOptions | false;
  /** The options of the controller started for the namespace; false: none (the bundle tests run their own). */
  readonly controller?: StartOptions | false;
  /** Runs once the hosts are available, before the controller starts. */
  readonly setup?: (scene: MachineTestScene) => Promise<void>;
  /** Runs first at teardown, whatever the tests did. */
  readonly teardown?: () => Promise<void>;
}

/** What the tests of a file share; read it inside tests and hooks, not at import time. */
export interface MachineTestScene {
  readonly env: TestEnv;
  /** The real Cluster API managers of the process. */
  readonly capi: ClusterApi;
  /** An admin client. */
  readonly client: Client;
  /** The file's namespace. */
  readonly ns: string;
  /** The simulators (BMO, workload clusters); a test may stop them and put others in their place (those are stopped at teardown). */
  world: RunningSimulators;
  /** The controller of the namespace (unless `controller: false`). */
  readonly controller: RunningController;
  /** A ClusterCache on the admin client for the workload clusters, made on first use. */
  readonly workloadCache: ClusterCache;
  /** A host of `hosts`, as it was once available. */
  host(name: string): BareMetalHost;
  /** One more controller (another namespace or configuration); stopped at teardown if still running. */
  startController(namespace: string, options?: StartOptions): Promise<RunningController>;
}

/**
 * Registers the file as a user of the shared environment and of the real Cluster API, and the
 * `before` and `after` hooks every real-apiserver file needs: an admin client, a fresh namespace, the simulated world, the Cluster
 * scene, the hosts (waited for until available, all at once) and the controller; at the end the
 * controllers, the world and the client are stopped. Call at module top level, before any hook.
 */
export function machineTestScene(test: SuiteHooks, options: SceneOptions): MachineTestScene {
  const env = withSharedEnv(test);
  const capi = withSharedClusterApi(test, env);
  let client: Client | undefined;
  let ns: string | undefined;
  let world: RunningSimulators | undefined;
  let controller: RunningController | undefined;
  let workloadCache: ClusterCache | undefined;
  const hosts = new Map<string, BareMetalHost>();
  const controllers: RunningController[] = [];
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`machineTestScene(${options.prefix}): no ${what} (not asked for, or read before the before hook ran)`);
    return value;
  };
  const scene: MachineTestScene = {
    get env() {
      return env();
    },
    get capi() {
      return capi();
    },
    get client() {
      return started(client, 'client');
    },
    get ns() {
      return started(ns, 'namespace');
    },
    get world() {
      return started(world, 'world');
    },
    set world(next) {
      world = next;
    },
    get controller() {
      return started(controller, 'controller');
    },
    get workloadCache() {
      return (workloadCache ??= new ClusterCache(scene.client, { closeGraceMs: 50 }));
    },
    host: (name) => started(hosts.get(name), `host ${name}`),
    async startController(namespace, startOptions = {}) {
      const running = await startMachineController(env(), namespace, startOptions);
      controllers.push(running);
      return running;
    },
  };
  test.before(async () => {
    client = adminClient(env());
    ns = await freshNamespace(env().admin.client, options.prefix);
    world = await startWorld(env(), ns, options.world);
    if (options.cluster !== false) await createClusterScene(client, ns, { workload: options.world?.workload !== false, ...options.cluster });
    if (options.hosts) {
      for (const host of await createAvailableHosts(client, ns, options.hosts, options.hostOptions, options.hostsTimeoutMs)) {
        hosts.set(host.metadata.name ?? '', host);
      }
    }
    await options.setup?.(scene);
    if (options.controller !== false) controller = await scene.startController(ns, options.controller);
  });
  test.after(async () => {
    await options.teardown?.();
    for (const running of [...controllers].reverse()) await running.stop();
    workloadCache?.close();
    await world?.stop();
    client?.transport.close();
  });
  return scene;
}
