// The Metal3Machine controller in the test process through the shared runner (credentials bound to
// exactly deploy/rbac.yaml, an exact request counter, the reconcile counters), with its ClusterCache;
// the rest of the world: the REAL Cluster API managers (core, kubeadm bootstrap and control plane;
// one set per test process, testing/cluster-api.ts) and the simulated BMO and workload clusters,
// where nothing real can run; machineTestScene, the hooks every real-apiserver file shares; and,
// re-exported, the scene's objects (scene-objects.ts: Cluster + Metal3Cluster, hosts with BMC
// Secrets, Machine + Metal3Machine pairs) and the pollers and readers of the cluster state (readers.ts).
import { fileURLToPath } from 'node:url';
import { Client, Transport } from '@metal3-ts/generated';
import { type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import type { RandomIndex } from '@metal3-ts/baremetal/selection';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace, withSharedEnv } from '@metal3-ts/test/envtest/suite';
import type { ClusterApi } from '@metal3-ts/test/capi/managers';
import { withSharedClusterApi } from '@metal3-ts/test/testing/cluster-api';
import { workloadNodes as readWorkloadNodes } from '@metal3-ts/test/testing/workload';
import { type RunningController as InProcessController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { type BmoOptions, bmoSimulator } from '@metal3-ts/test/sim/bmo/index';
import { type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { type ProviderIdMode, workloadSimulator } from '@metal3-ts/test/sim/workload/index';
import { type MachineControllerConfig, metal3MachineController } from '../src/controller.ts';
import { CONTROLLER_NAME } from '../src/names.ts';
import { CLUSTER, type ClusterSceneOptions, createAvailableHosts, createClusterScene, type HostList, type HostOptions } from './scene-objects.ts';
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

export interface RunningController extends InProcessController {
  /** `controller_runtime_reconcile_errors_total{controller="metal3machine"}`, as /metrics shows it. */
  reconcileErrorsTotal(): number;
  /**
   * Reconciles that looked at a workload cluster's Nodes: the provider-ID phase is the one caller of
   * the workload client. A request count cannot tell, since Nodes are read from the Node watch.
   */
  workloadLooks(): number;
}

export interface StartOptions extends MachineControllerConfig {
  readonly random?: RandomIndex;
}

/** Starts the controller through the shared runner as a fresh user bound to deploy/rbac.yaml, caching only `namespace`. */
export async function startMachineController(env: TestEnv, namespace: string, options: StartOptions = {}): Promise<RunningController> {
  const { random, ...config } = options;
  let workloadLooks = 0;
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
        workloadClient: (cluster) => {
          workloadLooks++;
          return clusterCache.get(cluster);
        },
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
    workloadLooks: () => workloadLooks,
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

export * from './scene-objects.ts';

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
