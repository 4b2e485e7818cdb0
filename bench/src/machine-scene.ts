// The world a Metal3Machine benchmark runs in: a fresh namespace with a ready Cluster and
// Metal3Cluster, the bootstrap data Secret, M hosts the simulated BMO made available (with their BMC
// Secrets), the real Cluster API managers (cluster-api.ts: they adopt each Metal3Machine for its
// Machine, as in production, with their webhooks checking every fixture), the simulated BMO and
// workload clusters at instant speed (kubelets may be told to join late), and an observer that stamps
// when each host is claimed and provisioned, each Metal3Machine is ready and each Node first seen and
// given its machine's provider ID, from watch events.
import type { Client } from '@metal3-ts/generated';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { ClusterResource, MachineResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3Cluster,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import { NodeWatches } from '@metal3-ts/shared/workload/node-watch';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { bmoSimulator, simulatedHost } from '@metal3-ts/test/sim/bmo/index';
import { type RunningSimulators, simulatorDeps, startSimulators } from '@metal3-ts/test/sim/simulator';
import { workloadSimulator } from '@metal3-ts/test/sim/workload/index';
import { benchClusterApi } from './cluster-api.ts';

export const CLUSTER = 'bench';
const BOOTSTRAP_SECRET = 'bench-bootstrap';
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';
const IMAGE = {
  url: 'http://172.22.0.1/images/node.img',
  checksum: 'http://172.22.0.1/images/node.img.sha256sum',
  checksumType: 'sha256' as const,
  format: 'raw' as const,
};
/** A kubeadm join whose kubelet labels its Node with the host's uuid (seed 000), so the label path runs. */
const CLOUD_CONFIG = [
  '## template: jinja',
  '#cloud-config',
  'write_files:',
  '-   path: /run/kubeadm/kubeadm-join-config.yaml',
  '    content: |',
  '      apiVersion: kubeadm.k8s.io/v1beta3',
  '      kind: JoinConfiguration',
  '      discovery:',
  '        bootstrapToken: {apiServerEndpoint: "192.168.111.249:6443", token: abcdef.0123456789abcdef, unsafeSkipCAVerification: true}',
  '      nodeRegistration:',
  "        name: '{{ ds.meta_data.name }}'",
  '        kubeletExtraArgs:',
  '          node-labels: metal3.io/uuid={{ ds.meta_data.uuid }}',
  'runcmd:',
  '  - kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml',
  '',
].join('\n');
/** The label every benchmark host carries and every benchmark machine selects. */
export const POOL_LABEL = 'bench.metal3-ts.dev/pool';

/** Milliseconds since the observer started, per object name. */
export type Stamps = ReadonlyMap<string, number>;

export interface MachineScene {
  readonly namespace: string;
  /** How many hosts the scene has. */
  readonly hosts: number;
  /** When each Metal3Machine was first seen owned by its Machine (Cluster API adopted it). */
  readonly adoptedAt: Stamps;
  /** When each machine (by name) was first named as a host's consumer. */
  readonly claimedAt: Stamps;
  /** When each machine's host was first seen provisioned. */
  readonly provisionedAt: Stamps;
  /** When each Metal3Machine was first ready with a providerID. */
  readonly readyAt: Stamps;
  /** When the Node of each machine (by machine name) first carried the machine's new-format provider ID. */
  readonly nodeIdAt: Stamps;
  /** Per machine: milliseconds from its Node first seen to that Node carrying the provider ID. */
  readonly nodeIdLatency: Stamps;
  /** The observer's clock: milliseconds since it started. */
  now(): number;
  /** Hosts available and unclaimed, now. */
  availableHosts(): number;
  metal3Machines(): number;
  /** Metal3Machines Cluster API made their Machine the owner of (ready to be associated). */
  adoptedMachines(): number;
  /** Resolves once `done()` holds, checking on every watch event (and every 250 ms). */
  until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SceneOptions {
  /** Time from a host provisioned to its kubelet's Node registering (default 0). */
  readonly joinDelayMs?: number;
}

/** The scene with `hosts` available hosts; the hosts are created 16 at a time. */
export async function machineScene(env: TestEnv, admin: Client, prefix: string, hosts: number, options: SceneOptions = {}): Promise<MachineScene> {
  // The workload apiserver starts beside the managers, so it serves when the Cluster appears.
  env.warmWorkloadCluster();
  await benchClusterApi(env);
  const namespace = await freshNamespace(env.admin.client, prefix);
  // The scene's simulators see its namespace only: the run's 2 000 hosts elsewhere (populate.ts, no
  // BMC Secrets) kept a cluster-wide simulated BMO busy at each scene's start (provisioning p50 16 s).
  const deps = simulatorDeps(env.admin, { namespace });
  const world: RunningSimulators = await startSimulators(deps, [
    ...bmoSimulator(deps, { maxConcurrentReconciles: 8 }),
    ...workloadSimulator(deps, { env, namespace, retryAfterMs: 100, ...(options.joinDelayMs ? { joinDelayMs: options.joinDelayMs } : {}) }),
  ]);
  const observer = await observe(admin, namespace);
  try {
    await createCluster(admin, namespace);
    await observer.until(
      'the Cluster infrastructure ready',
      async () => (await admin.api(ClusterResource, namespace).get(CLUSTER)).status?.infrastructureReady === true,
      30_000,
    );
    await observer.watchNodes({ namespace, name: CLUSTER });
    await forEach(hosts, 16, async (i) => {
      const { host, secret } = simulatedHost(`host-${String(i).padStart(4, '0')}`, { namespace, labels: { [POOL_LABEL]: 'bench' } });
      await admin.api(SecretResource, namespace).create(secret);
      await admin.api(BareMetalHostResource, namespace).create(host);
    });
    await observer.until(`${hosts} hosts available`, () => observer.available() === hosts, 60_000 + hosts * 100);
  } catch (error) {
    await Promise.all([observer.stop(), world.stop()]);
    throw error;
  }
  return {
    namespace,
    hosts,
    adoptedAt: observer.adoptedAt,
    claimedAt: observer.claimedAt,
    provisionedAt: observer.provisionedAt,
    readyAt: observer.readyAt,
    nodeIdAt: observer.nodeIdAt,
    nodeIdLatency: observer.nodeIdLatency,
    now: observer.now,
    availableHosts: observer.available,
    metal3Machines: observer.metal3Machines,
    adoptedMachines: observer.adopted,
    until: observer.until,
    stop: async () => {
      await Promise.all([observer.stop(), world.stop()]);
    },
  };
}

/** `count` Machine + Metal3Machine pairs selecting the benchmark pool, created 25 at a time; returns each name's creation time. */
export async function createMachines(admin: Client, scene: MachineScene, prefix: string, count: number): Promise<Map<string, number>> {
  const createdAt = new Map<string, number>();
  const labels = { [CLUSTER_LABEL]: CLUSTER };
  await forEach(count, 25, async (i) => {
    const name = `${prefix}-${String(i).padStart(4, '0')}`;
    createdAt.set(name, scene.now());
    await admin.api(Metal3MachineResource, scene.namespace).create(
      newMetal3Machine({ metadata: { name, labels }, spec: { image: IMAGE, hostSelector: { matchLabels: { [POOL_LABEL]: 'bench' } } } }),
    );
    await admin.api(MachineResource, scene.namespace).create(
      newMachine({
        metadata: { name, labels },
        spec: {
          clusterName: CLUSTER,
          bootstrap: { dataSecretName: BOOTSTRAP_SECRET },
          infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
        },
      }),
    );
  });
  return createdAt;
}

/**
 * Deletes the named Machines and waits until Cluster API has deleted their Metal3Machines and every
 * host is available again (a controller must be running to release them).
 */
export async function deleteMachines(admin: Client, scene: MachineScene, names: readonly string[], timeoutMs: number): Promise<void> {
  const machines = admin.api(MachineResource, scene.namespace);
  // 25 in flight, as they were created: a thousand deletes at once outwait the client's deadline
  // behind Cluster API's webhooks on 2 cores.
  await forEach(names.length, 25, (i) => machines.delete(names[i]!).then(() => undefined));
  const gone = () => scene.metal3Machines() === 0 && scene.availableHosts() === scene.hosts;
  await scene.until(`${names.length} machines deleted`, gone, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message} (${scene.metal3Machines()} Metal3Machines left, ${scene.availableHosts()} of ${scene.hosts} hosts available)`);
  });
}

/** Runs `work(0 … count-1)` with `width` at a time. */
export async function forEach(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

async function createCluster(admin: Client, namespace: string): Promise<void> {
  const labels = { [CLUSTER_LABEL]: CLUSTER };
  await admin.api(Metal3ClusterResource, namespace).create(
    newMetal3Cluster({
      metadata: { name: CLUSTER, labels },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: false },
    }),
  );
  await admin.api(Metal3ClusterResource, namespace).mergePatchStatus(CLUSTER, { status: { ready: true } });
  await admin.api(SecretResource, namespace).create(
    newSecret({ metadata: { name: BOOTSTRAP_SECRET, labels }, type: 'cluster.x-k8s.io/secret', stringData: { value: CLOUD_CONFIG, format: 'cloud-config' } }),
  );
  await admin.api(ClusterResource, namespace).create(
    newCluster({
      metadata: { name: CLUSTER },
      spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: CLUSTER } },
    }),
  );
}

const isAvailable = (h: Readonly<BareMetalHost>) => h.status?.provisioning?.state === 'available' && !h.spec?.consumerRef && !h.metadata.deletionTimestamp;
const isAdopted = (m: Readonly<Metal3Machine>) => m.metadata.ownerReferences?.some((r) => r.kind === 'Machine') === true;
const isReady = (m: Readonly<Metal3Machine>) => m.status?.ready === true && !!m.spec?.providerID;

async function observe(admin: Client, namespace: string) {
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const informers = new InformerFactory(admin, { namespace });
  const hosts = informers.informerFor(BareMetalHostResource);
  const machines = informers.informerFor(Metal3MachineResource);
  const adoptedAt = new Map<string, number>();
  const claimedAt = new Map<string, number>();
  const provisionedAt = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const nodeSeenAt = new Map<string, number>();
  const nodeIdAt = new Map<string, number>();
  const nodeIdLatency = new Map<string, number>();
  const available = new Set<string>();
  const wakers = new Set<() => void>();
  const wake = () => wakers.forEach((w) => w());
  const ownPrefix = `metal3://${namespace}/`;
  const clusterCache = new ClusterCache(admin, { closeGraceMs: 50 });
  const nodes = new NodeWatches((_, node) => {
    const name = node.metadata.name ?? '';
    if (!nodeSeenAt.has(name)) nodeSeenAt.set(name, now());
    const id = node.spec?.providerID ?? '';
    const machine = id.startsWith(ownPrefix) ? id.split('/').pop() : undefined;
    if (machine && !nodeIdAt.has(machine)) {
      nodeIdAt.set(machine, now());
      nodeIdLatency.set(machine, now() - (nodeSeenAt.get(name) ?? now()));
    }
    wake();
  }, { idleMs: 24 * 3600_000 });
  hosts.subscribe((event) => {
    const name = event.object.metadata.name ?? '';
    if (event.type !== 'delete' && isAvailable(event.object)) available.add(name);
    else available.delete(name);
    const consumer = event.type === 'delete' ? undefined : event.object.spec?.consumerRef?.name;
    if (consumer && !claimedAt.has(consumer)) claimedAt.set(consumer, now());
    if (consumer && event.object.status?.provisioning?.state === 'provisioned' && !provisionedAt.has(consumer)) provisionedAt.set(consumer, now());
    wake();
  });
  machines.subscribe((event) => {
    const name = event.object.metadata.name ?? '';
    if (event.type !== 'delete' && isReady(event.object) && !readyAt.has(name)) readyAt.set(name, now());
    if (event.type !== 'delete' && isAdopted(event.object) && !adoptedAt.has(name)) adoptedAt.set(name, now());
    wake();
  });
  const stop = new AbortController();
  const running = informers.start(stop.signal);
  await informers.waitForSync();

  /** Waits until `done()` holds, asking again on every watch event and every 250 ms. */
  async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!(await done())) {
      if (performance.now() > deadline) throw new Error(`bench: ${what}: not after ${(timeoutMs / 1000).toFixed(0)} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, 250);
        function finish() {
          clearTimeout(timer);
          wakers.delete(finish);
          resolve();
        }
        wakers.add(finish);
      });
    }
  }
  /** Watches the cluster's Nodes once its workload apiserver answers. */
  async function watchNodes(cluster: { namespace: string; name: string }): Promise<void> {
    const deadline = performance.now() + 60_000;
    for (;;) {
      try {
        nodes.ensure(cluster, await clusterCache.get(cluster));
        return;
      } catch (error) {
        if (performance.now() > deadline) throw new Error(`bench: workload cluster not reachable: ${String(error)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
  return {
    adoptedAt,
    claimedAt,
    provisionedAt,
    readyAt,
    nodeIdAt,
    nodeIdLatency,
    watchNodes,
    now,
    available: () => available.size,
    metal3Machines: () => machines.store.list().length,
    adopted: () => machines.store.list().filter(isAdopted).length,
    until,
    stop: async () => {
      stop.abort();
      await Promise.all([running, nodes.close()]);
      clusterCache.close();
    },
  };
}
