// A world for phase-level tests on the fake apiserver (shared/src/testing/fake-client): the objects
// live on a fake server, the informers are FakeInformers that `sync()` fills from it (so a phase
// reads the cache as in production, and a test says when the cache catches up), and `scope()` reads
// a Metal3Machine's scope exactly as a reconcile does (readScope → guard → newScope). Events are
// recorded in memory. Test code only: no product module imports it.
import type { Client, KubeObject, ResourceDescriptor } from '@metal3-ts/generated';
import { ClusterResource, type Machine, MachineResource, MachineSetResource, newCluster, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  type Metal3Machine,
  Metal3MachineResource,
  type Metal3MachineSpec,
  Metal3MachineTemplateResource,
  newMetal3Cluster,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostInventory } from '@metal3-ts/baremetal/inventory';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { FakeInformer } from '@metal3-ts/shared/testing/fake-informer';
import { type FakeCluster, fakeCluster } from '@metal3-ts/shared/testing/fake-client/index';
import { type MachineContext, machineContext } from '../context.ts';
import type { MachineReconcilerDeps, WorkloadClient } from '../deps.ts';
import { guard } from '../guards.ts';
import { CLUSTER_NAME_LABEL } from '../names.ts';
import { type MachineInformers, type MachineScope, newScope, readScope } from '../scope.ts';

export const NS = 'ns';
export const CLUSTER = 'c1';
export const IMAGE = { url: 'http://images/node.img', checksum: 'http://images/node.img.sha256sum', checksumType: 'sha256' as const, format: 'raw' as const };

export interface RecordedEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

type Informers = { readonly [K in keyof MachineInformers]: MachineInformers[K] & FakeInformer<KubeObject> };

export interface PhaseWorld extends FakeCluster {
  readonly informers: Informers;
  readonly ctx: MachineContext;
  readonly events: RecordedEvent[];
  /** Makes every informer show what the server holds now (the watches caught up). */
  sync(): Promise<void>;
  /** Creates `object` on the server (then its status, which a create drops) and syncs. */
  put<T extends KubeObject>(resource: ResourceDescriptor<T>, object: T): Promise<T>;
  /** The scope of `name` as a reconcile reads it, after a sync. */
  scope(name?: string): Promise<MachineScope>;
}

const KINDS = {
  metal3Machines: Metal3MachineResource,
  machines: MachineResource,
  clusters: ClusterResource,
  metal3Clusters: Metal3ClusterResource,
  hosts: BareMetalHostResource,
  claims: Metal3DataClaimResource,
  datas: Metal3DataResource,
  templates: Metal3MachineTemplateResource,
  machineSets: MachineSetResource,
} as const;

export interface WorldOptions {
  readonly workloadClient?: WorkloadClient;
  readonly fastTrack?: string;
}

export function phaseWorld(options: WorldOptions = {}): PhaseWorld {
  const cluster = fakeCluster();
  const informers = Object.fromEntries(
    Object.entries(KINDS).map(([key, resource]) => [key, new FakeInformer(resource as ResourceDescriptor<KubeObject>)]),
  ) as unknown as Informers;
  const events: RecordedEvent[] = [];
  const record = (type: RecordedEvent['type']) => (_object: unknown, reason: string, message: string) => void events.push({ type, reason, message });
  const recorder = { normal: record('Normal'), warning: record('Warning') } as unknown as EventRecorder;
  const deps: MachineReconcilerDeps = {
    client: cluster.client,
    informers,
    inventory: hostInventory(informers.hosts),
    workloadClient: options.workloadClient ?? (() => Promise.reject(new Error('no workload cluster in this test'))),
    events: recorder,
    random: () => 0,
    fastTrack: options.fastTrack,
  };
  const ctx = machineContext(deps);
  // The informers' own client, so a test's request log shows only what the phases sent.
  const watcher = cluster.newClient();
  const sync = async () => {
    for (const [key, resource] of Object.entries(KINDS)) {
      const informer = informers[key as keyof Informers];
      const served = (await watcher.api(resource as ResourceDescriptor<KubeObject>).list()).items;
      const names = new Set(served.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      for (const cached of informer.store.list()) {
        if (!names.has(`${cached.metadata.namespace}/${cached.metadata.name}`)) {
          informer.noteDelete({ namespace: cached.metadata.namespace, name: cached.metadata.name ?? '' });
        }
      }
      for (const object of served) informer.noteWrite(object);
    }
  };
  const put = async <T extends KubeObject>(resource: ResourceDescriptor<T>, object: T): Promise<T> => {
    const api = cluster.client.api(resource, object.metadata.namespace);
    let made = await api.create(object);
    const status = (object as { status?: unknown }).status;
    if (status !== undefined && resource.statusSubresource) made = await api.mergePatchStatus(made.metadata.name ?? '', { status } as never);
    await sync();
    return made;
  };
  const scope = async (name = 'm1') => {
    await sync();
    const request = { namespace: NS, name };
    const reads = readScope(informers, request, cluster.client.api(Metal3MachineResource, NS), silentLogger);
    if (!reads) throw new Error(`no Metal3Machine ${NS}/${name}`);
    return newScope(reads, guard(reads), new Date('2026-01-01T00:00:00Z'));
  };
  return { ...cluster, informers, ctx, events, sync, put, scope };
}

export interface SceneOptions {
  readonly spec?: Metal3MachineSpec;
  readonly annotations?: Record<string, string>;
  readonly finalizers?: string[];
  readonly paused?: boolean;
  /** Extra labels and the owners of the Cluster API Machine (a control plane's, for node reuse). */
  readonly machineLabels?: Record<string, string>;
  readonly machineOwners?: NonNullable<Machine['metadata']['ownerReferences']>;
  readonly machineStatus?: Machine['status'];
  readonly status?: Metal3Machine['status'];
}

/** A ready Cluster and Metal3Cluster, and Machine `name` owning Metal3Machine `name` (bootstrap data named). */
export async function machineScene(world: PhaseWorld, name = 'm1', options: SceneOptions = {}): Promise<Metal3Machine> {
  const labels = { [CLUSTER_NAME_LABEL]: CLUSTER };
  if (!world.informers.clusters.store.get({ namespace: NS, name: CLUSTER })) {
    await world.put(
      Metal3ClusterResource,
      newMetal3Cluster({ metadata: { name: CLUSTER, namespace: NS, labels }, spec: { noCloudProvider: true }, status: { ready: true } }),
    );
    await world.put(
      ClusterResource,
      newCluster({
        metadata: { name: CLUSTER, namespace: NS },
        spec: {
          ...(options.paused ? { paused: true } : {}),
          infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: CLUSTER },
        },
        status: { infrastructureReady: true },
      }),
    );
  }
  const machine = await world.put(
    MachineResource,
    newMachine({
      metadata: {
        name,
        namespace: NS,
        labels: { ...labels, ...options.machineLabels },
        ...(options.machineOwners ? { ownerReferences: options.machineOwners } : {}),
      },
      spec: {
        clusterName: CLUSTER,
        bootstrap: { dataSecretName: 'bootstrap-data' },
        infrastructureRef: { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name },
      },
      ...(options.machineStatus ? { status: options.machineStatus } : {}),
    }),
  );
  return world.put(
    Metal3MachineResource,
    newMetal3Machine({
      metadata: {
        name,
        namespace: NS,
        labels,
        ...(options.annotations ? { annotations: options.annotations } : {}),
        ...(options.finalizers ? { finalizers: options.finalizers } : {}),
        ownerReferences: [{ apiVersion: MachineResource.apiVersion, kind: 'Machine', name, uid: machine.metadata.uid ?? '', controller: true }],
      },
      spec: options.spec ?? { image: IMAGE },
      ...(options.status ? { status: options.status } : {}),
    }),
  );
}

/** `host` on the server (status included), its inventory entry synced. */
export const putHost = (world: PhaseWorld, host: BareMetalHost): Promise<BareMetalHost> => {
  const { resourceVersion: _rv, uid: _uid, ...metadata } = host.metadata;
  return world.put(BareMetalHostResource, { ...host, metadata });
};

export const hostOn = (client: Client, name: string): Promise<BareMetalHost> => client.api(BareMetalHostResource, NS).get(name);

/** `METHOD resource code` of every request `client` sends from now on. */
export function requests(client: Client): string[] {
  const seen: string[] = [];
  const after = client.transport.hooks.after;
  client.transport.hooks = {
    ...client.transport.hooks,
    after: (r) => {
      seen.push(`${r.method} ${r.resource} ${r.code}`);
      after?.(r);
    },
  };
  return seen;
}
