// The local lab: a real kube-apiserver with every CRD and the admission policies the install ships,
// real Cluster API (core, kubeadm bootstrap and
// control plane, the newest release built here unless told), the simulated rest of the world (BMO,
// IPAM, workload clusters with kubelets), the five
// metal3-ts controllers as processes from their bundles (each restarted with back-off whenever it
// exits, as a kubelet would), N BareMetalHosts with BMC Secrets, and the example cluster applied. What `npm start` runs and what every end-to-end scenario starts from.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Transport } from '@metal3-ts/generated';
import { NamespaceResource, newNamespace, SecretResource } from '@metal3-ts/generated/core/v1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { startEnv, type TestEnv } from '@metal3-ts/test/envtest/env';
import { registerDirectory } from '@metal3-ts/test/envtest/processes';
import type { Runtime } from '@metal3-ts/test/harness/controller-process';
import { type BmoSpeed, simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { garbageCollector } from '@metal3-ts/test/sim/gc/index';
import { bmoSimulator, ipamSimulator, type RunningSimulators, simulatorDeps, startSimulators, workloadSimulator } from '@metal3-ts/test/sim/index';
import { type ClusterApi, startClusterAPI } from '@metal3-ts/test/capi/managers';
import { CAPI_VERSIONS } from '@metal3-ts/test/envtest/capi-binaries';
import { Metal3DataResource, Metal3DataTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPAddressResource, IPClaimResource, IPPoolResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import type { RestartPolicy } from './backoff.ts';
import { ALL_IN_ONE, type ControllerName, CONTROLLERS, type ProcessName, startController } from './controllers.ts';
import { type LabImages, prepareImages, startImageController } from './images.ts';
import type { SupervisedController } from './supervisor.ts';
import { applyManifests, metal3At, type Metal3Version, readManifests } from './manifests.ts';
import { installPolicies } from './policies.ts';

export const LAB_NAMESPACE = 'metal3';
/** The seed 003 cluster: KubeadmControlPlane with 3 replicas, MachineDeployment md-0 with 3. */
export const EXAMPLE_MANIFESTS = new URL('../../manifests', import.meta.url).pathname;
/** The Cluster API the lab runs unless told: the newest release build-capi.sh knows. */
export const DEFAULT_CAPI: string = CAPI_VERSIONS[0]!;

export interface LabOptions {
  /** BareMetalHosts to create (default 8: 3 control-plane, the rest workers). */
  readonly hosts?: number;
  /** How many of them carry `pool: control-plane` (default 3); the others `pool: worker`. */
  readonly controlPlaneHosts?: number;
  /**
   * Manifests file or directory applied once everything runs (default: the example cluster,
   * EXAMPLE_MANIFESTS); null applies nothing.
   */
  readonly manifests?: string | null;
  /**
   * Writes the manifests' Metal3 objects (group infrastructure.cluster.x-k8s.io) at this version
   * (default: as written). `v1beta2` converts each by the conversion webhook's own rules before it is
   * applied, so a scenario runs from v1beta2 manifests without a second copy of its YAML (issue 18).
   */
  readonly metal3Version?: Metal3Version;
  /** BMO simulator speed: `instant` (default) or `bmoTestMode` (BMO's test-mode delays). */
  readonly speed?: BmoSpeed;
  /** Time from a host being provisioned to its Node registering (default 0). */
  readonly joinDelayMs?: number;
  /**
   * Run the controllers from their OCI images (built from the working tree, run as a kubelet would:
   * images.ts) instead of their bundles (default false; needs root).
   */
  readonly images?: boolean;
  /** Run the five controllers as one all-in-one process (controllers/all-in-one; default false; not with `images`). */
  readonly allInOne?: boolean;
  /** Runtime per controller (default Node for all; not with `images`). */
  readonly runtimes?: Partial<Record<ControllerName, Runtime>>;
  /** Extra flags per controller. */
  readonly args?: Partial<Record<ControllerName, readonly string[]>>;
  /**
   * Install the ValidatingAdmissionPolicies the install ships (config/policy: same-namespace
   * references, label-sync prefixes; policies.ts), as an install does (default true). Off only for
   * the scenario that shows the controllers hold the boundary alone.
   */
  readonly admissionPolicy?: boolean;
  /** Back-off of controller restarts (default LAB_POLICY: 1 s doubling to 30 s). */
  readonly restartPolicy?: RestartPolicy;
  /**
   * Cluster API: a release built by build-capi.sh (default DEFAULT_CAPI, the newest), whose real core,
   * kubeadm bootstrap and control-plane managers run beside the simulators.
   */
  readonly capi?: string;
  readonly log?: (message: string) => void;
}

export interface Lab {
  readonly env: TestEnv;
  readonly client: Client;
  readonly namespace: string;
  readonly controllers: ReadonlyMap<ProcessName, SupervisedController>;
  /** The Cluster API release running (e.g. `v1.13.5`). */
  readonly capi: string;
  /** Creates `count` more hosts named `host-<n>` after the existing ones. */
  addHosts(count: number, pool?: string): Promise<string[]>;
  /** Ends controller supervision and SIGTERMs them (resolves once they exited); the lab stays up. */
  stopControllers(): Promise<void>;
  /** Stops controllers (SIGTERM), simulators and the apiserver, and removes the lab's files. */
  stop(): Promise<void>;
}

export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'metal3-ts-lab-'));
  // Removed by the test environment's exit and signal hooks too, should stop() never run (Ctrl-C).
  registerDirectory(dir);
  // The image build (mostly gzip, in its own process) overlaps with the apiserver's start.
  const imagesReady: Promise<LabImages | undefined> = options.images ? prepareImages(dir, log) : Promise.resolve(undefined);
  imagesReady.catch(() => {});
  const env = await startEnv({ log: () => {} }).catch(async (error: unknown) => {
    await imagesReady.catch(() => {});
    throw error;
  });
  log(`apiserver ${env.admin.server} with ${env.crds.length} CRDs (${Math.round(performance.now() - started)} ms)`);
  // The example cluster's workload apiserver starts now, beside Cluster API and the controllers, not
  // once the Cluster appears: Cluster API's first connection (a few seconds after the apply) then
  // finds it serving instead of timing out and waiting 30 s for the next try.
  if (options.manifests !== null) env.warmWorkloadCluster();
  const client = new Client(Transport.fromConnection(env.admin));
  const namespace = LAB_NAMESPACE;
  await client.api(NamespaceResource).create(newNamespace({ metadata: { name: namespace } }));
  if (options.admissionPolicy ?? true) {
    const policies = await installPolicies(env.admin.client, namespace);
    log(`admission policies enforced: ${policies.join(', ')}`);
  }

  let sims: RunningSimulators | undefined;
  let capi: ClusterApi | undefined;
  const controllers = new Map<ProcessName, SupervisedController>();
  const stopControllers = async () => {
    await Promise.all([...controllers.values()].map((c) => c.stop()));
  };
  const stop = async () => {
    await stopControllers();
    await sims?.stop();
    await capi?.stop();
    client.transport.close();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deps = simulatorDeps(env.admin);
    const workload = { env, joinDelayMs: options.joinDelayMs ?? 0 };
    const bmo = { speed: options.speed ?? 'instant' };
    const version = options.capi ?? DEFAULT_CAPI;
    capi = await startClusterAPI(env, { version });
    log(`Cluster API ${capi.version}: core, kubeadm bootstrap and control-plane managers ready (${Math.round(capi.timings.managersMs)} ms)`);
    sims = await startSimulators(deps, [
      ...bmoSimulator(deps, bmo),
      ...ipamSimulator(deps),
      ...workloadSimulator(deps, workload),
      // The test apiserver has no kube-controller-manager: owned objects need a collector.
      // The IPPool too: IPAM makes the Cluster its owner, so the collector removes it with the Cluster.
      ...garbageCollector(deps, {
        namespace,
        dependents: [SecretResource, Metal3DataTemplateResource, Metal3DataResource, IPClaimResource, IPAddressResource, IPPoolResource],
      }),
    ]);
    log('simulators: BMO, IPAM, workload clusters, garbage collector');
    const images = await imagesReady;
    if (options.allInOne && images) throw new Error('the lab runs the all-in-one process from its bundle only, not from an image');
    const processes: readonly ProcessName[] = options.allInOne ? [ALL_IN_ONE] : CONTROLLERS;
    await Promise.all(
      processes.map(async (name) => {
        const runtime = name === ALL_IN_ONE ? 'node' : options.runtimes?.[name] ?? 'node';
        const common = {
          dir,
          namespace,
          extraArgs: name === ALL_IN_ONE ? [] : options.args?.[name] ?? [],
          ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
          log,
        };
        const controller = images && name !== ALL_IN_ONE
          ? await startImageController(env, name, images, common)
          : await startController(env, name, { ...common, runtime });
        controllers.set(name, controller);
        log(
          `controller ${name} ready (${images ? 'image' : runtime}): serving probes ${
            ((performance.now() - controller.process.startedMs) / 1000).toFixed(2)
          } s after its process started`,
        );
      }),
    );
    let next = 0;
    const addHosts = async (count: number, pool?: string): Promise<string[]> => {
      const names: string[] = [];
      for (let i = 0; i < count; i++, next++) {
        const name = `host-${next}`;
        const role = pool ?? (next < (options.controlPlaneHosts ?? 3) ? 'control-plane' : 'worker');
        const { host, secret } = simulatedHost(name, { namespace, labels: { pool: role } });
        await client.api(SecretResource, namespace).create(secret);
        await client.api(BareMetalHostResource, namespace).create(host);
        names.push(name);
      }
      return names;
    };
    await addHosts(options.hosts ?? 8);
    log(`${options.hosts ?? 8} BareMetalHosts created`);
    if (options.manifests !== null) {
      const path = options.manifests ?? EXAMPLE_MANIFESTS;
      const manifests = metal3At(readManifests(path), options.metal3Version);
      await applyManifests(client, namespace, manifests);
      log(`applied ${manifests.length} objects from ${path}${options.metal3Version ? ` (Metal3 objects at ${options.metal3Version})` : ''}`);
    }
    return { env, client, namespace, controllers, capi: version, addHosts, stopControllers, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
