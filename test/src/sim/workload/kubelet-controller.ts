// The kubelet of every provisioned host: registers the host's Node in its workload cluster when BMO
// reports the host provisioned, and takes it away when the host deprovisions (or disappears).
//
// Kubelet semantics kept: the Node is registered once per provisioning; a Node deleted by someone
// else while the host stays provisioned is not registered again (a running kubelet does not
// re-register; a restarted one does — restarting the simulator is that restart); registering over an
// existing Node of the same name adopts it, as the kubelet does. Data comes from the host's userData
// and metaData Secrets as cloud-init would read them (node.ts).
// A control-plane node's kubelet also runs the static pods (mirror Pods) and kubeadm uploads
// kubeadm-config (static-pods.ts), which KubeadmControlPlane checks; its port-forward endpoint and
// etcd member are node-runtime.ts, stopped when the Node goes.
// A test stops a host's kubelet, or makes it report NotReady, with an annotation (kubelet-state.ts):
// its Node goes Unknown (as the node lifecycle controller marks a silent kubelet) or False, and Ready
// again when the annotation goes; a stopped kubelet does not register.
// A host powered off (BMO's reboot annotation, remediation R-10) stops its kubelet like the annotation
// does; powered on again, a fresh kubelet boots and registers the Node again if it was deleted
// meanwhile (remediation deletes it while the host is off), or adopts it and posts its state.
// Not kept: heartbeats, other status updates after registration.
// Known gap: if the simulator restarts after a host left `provisioned`, its Node is only found again
// while the host is `deprovisioning` (with its consumer still set); later, it is left behind.
import { type Client, isAlreadyExists, isNotFound } from '@metal3-ts/generated';
import { ClusterResource, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Node, NodeResource, type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { type ReconcileContext, type Request, requestKey, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import {
  type ClusterKey,
  clusterKeyString,
  ClusterNotReachableError,
  InvalidKubeconfigSecretError,
  KubeconfigSecretNotFoundError,
} from '@metal3-ts/shared/workload/errors';
import type { SimulatorDeps } from '../simulator.ts';
import { clusterOfHost, consumerMetal3Machine, inNamespace } from './host-cluster.ts';
import { isProviderIdMode, NODE_HOST_UID_ANNOTATION, PROVIDER_ID_MODE_ANNOTATION, type ProviderIdMode } from './names.ts';
import { type KubeletState, kubeletState, poweredOff, writeNodeHealth } from './kubelet-state.ts';
import { plannedNode, shouldNodeExist } from './node.ts';
import type { NodeRuntimes } from './node-runtime.ts';
import { secretText } from './secret-data.ts';
import { removeMirrorPods, startControlPlane } from './static-pods.ts';

export interface KubeletControllerContext {
  readonly clusterCache: ClusterCache;
  readonly mode: ProviderIdMode;
  readonly retryAfterMs: number;
  readonly joinDelayMs: number;
  readonly namespace?: string | undefined;
  /** Control-plane Nodes' kubelet endpoints and etcd members. */
  readonly runtimes?: NodeRuntimes;
}

/** A Node this simulator registered (or adopted) for a host. */
interface Joined {
  readonly hostUid: string;
  /** The consumer the host was provisioned for: a different one means a new provisioning, a new kubelet. */
  readonly consumer: string;
  readonly cluster: ClusterKey;
  readonly nodeName: string;
  /** False when an existing Node of someone else was adopted: we never delete it. */
  readonly owned: boolean;
  /** A control-plane node: its mirror Pods go with it. */
  readonly controlPlane?: boolean;
  /** What the Node was last made to say about its kubelet (kubelet-state.ts); unset: running. */
  readonly state?: KubeletState;
  /** The host was powered off since this kubelet registered: the next power-on boots a new kubelet. */
  readonly poweredOff?: boolean;
}

const METAL3_HOST_ANNOTATION = 'metal3.io/BareMetalHost';

function consumerIdentity(host: Readonly<BareMetalHost>): string {
  const ref = host.spec?.consumerRef;
  return ref ? `${ref.kind}/${ref.namespace ?? ''}/${ref.name ?? ''}/${ref.uid ?? ''}` : '';
}

/** A Metal3Machine wakes the host named by its host annotation (its cluster label may just have arrived). */
const metal3MachineToHost = (m3m: Readonly<Metal3Machine>): Request[] => {
  const value = m3m.metadata.annotations?.[METAL3_HOST_ANNOTATION];
  const slash = value?.indexOf('/') ?? -1;
  return value && slash > 0 ? [{ namespace: value.slice(0, slash), name: value.slice(slash + 1) }] : [];
};

/** The workload cluster cannot be had now; undefined when it is gone for good (no kubeconfig Secret). */
async function workloadClient(cache: ClusterCache, cluster: ClusterKey, signal: AbortSignal): Promise<Client | undefined> {
  try {
    return await cache.get(cluster, { signal });
  } catch (error) {
    if (error instanceof KubeconfigSecretNotFoundError) return undefined;
    throw error;
  }
}

const waiting = (error: unknown): boolean =>
  error instanceof KubeconfigSecretNotFoundError || error instanceof ClusterNotReachableError || error instanceof InvalidKubeconfigSecretError;

export function kubeletController(deps: SimulatorDeps, ctx: KubeletControllerContext): Controller {
  const hosts = deps.informers.informerFor(BareMetalHostResource);
  const metal3Machines = deps.informers.informerFor(Metal3MachineResource);
  const machines = deps.informers.informerFor(MachineResource);
  const clusters = deps.informers.informerFor(ClusterResource);
  const joined = new Map<string, Joined>();
  const provisionedSince = new Map<string, number>();
  const lookup = {
    metal3Machine: (namespace: string, name: string) => metal3Machines.store.get({ namespace, name }),
    machine: (namespace: string, name: string) => machines.store.get({ namespace, name }),
  };

  /** Deletes our Node if it is still the one we registered; throws ClusterNotReachableError while unreachable. */
  const removeNode = async (entry: Joined, signal: AbortSignal, log: Logger): Promise<void> => {
    if (entry.controlPlane) await ctx.runtimes?.stop(entry.cluster, entry.nodeName);
    if (!entry.owned) return;
    const client = await workloadClient(ctx.clusterCache, entry.cluster, signal);
    if (!client) return; // the cluster is gone, and its Nodes with it
    const nodes = client.api(NodeResource);
    try {
      const node = await nodes.get(entry.nodeName);
      if (node.metadata.annotations?.[NODE_HOST_UID_ANNOTATION] !== entry.hostUid) return;
      await nodes.delete(entry.nodeName, { preconditions: { uid: node.metadata.uid! } });
      if (entry.controlPlane) await removeMirrorPods(client, entry.nodeName);
      log.info('node removed: host left provisioned', { cluster: clusterKeyString(entry.cluster), node: entry.nodeName });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  };

  /** After a restart: Nodes of a deprovisioning host in its consumer's cluster, found by annotation. */
  const removeForgottenNodes = async (host: Readonly<BareMetalHost>, signal: AbortSignal, log: Logger): Promise<void> => {
    const found = clusterOfHost(host, lookup);
    if (!found.found) return;
    const client = await workloadClient(ctx.clusterCache, found.cluster, signal);
    if (!client) return;
    const list = await client.api(NodeResource).list();
    for (const node of list.items) {
      if (node.metadata.annotations?.[NODE_HOST_UID_ANNOTATION] !== host.metadata.uid) continue;
      await removeNode({ hostUid: host.metadata.uid!, consumer: '', cluster: found.cluster, nodeName: node.metadata.name!, owned: true }, signal, log);
    }
  };

  const readSecret = async (ref: { name?: string; namespace?: string } | undefined, host: Readonly<BareMetalHost>): Promise<Secret | undefined | 'missing'> => {
    if (!ref?.name) return undefined;
    try {
      return await deps.client.api(SecretResource, ref.namespace || host.metadata.namespace).get(ref.name);
    } catch (error) {
      if (isNotFound(error)) return 'missing';
      throw error;
    }
  };

  const modeOf = (cluster: ClusterKey, log: Logger): ProviderIdMode => {
    const value = clusters.store.get(cluster)?.metadata.annotations?.[PROVIDER_ID_MODE_ANNOTATION];
    if (value === undefined) return ctx.mode;
    if (isProviderIdMode(value)) return value;
    log.warn('unknown provider-id mode on Cluster; using the default', { value, default: ctx.mode });
    return ctx.mode;
  };

  /** A joined kubelet stopped, turned NotReady or runs again: the Node's conditions and taints follow. */
  const syncState = async (host: Readonly<BareMetalHost>, key: string, entry: Joined, { signal, log }: ReconcileContext): Promise<Result> => {
    const state = kubeletState(host);
    const off = entry.poweredOff || poweredOff(host);
    if (off && !entry.poweredOff) {
      entry = { ...entry, poweredOff: true };
      joined.set(key, entry);
    }
    if (state === (entry.state ?? 'running')) return {};
    let client: Client | undefined;
    try {
      client = await workloadClient(ctx.clusterCache, entry.cluster, signal);
    } catch (error) {
      if (waiting(error)) return { requeueAfterMs: ctx.retryAfterMs };
      throw error;
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const written = client !== undefined && await writeNodeHealth(client, entry.nodeName, entry.hostUid, state, now);
    joined.set(key, { ...entry, state });
    log.info('kubelet state changed', { node: entry.nodeName, state, written });
    return {};
  };

  const join = async (host: Readonly<BareMetalHost>, key: string, { signal, log }: ReconcileContext): Promise<Result> => {
    const retry = { requeueAfterMs: ctx.retryAfterMs };
    if (kubeletState(host) === 'stopped') {
      log.info('kubelet stopped before it joined: no Node');
      return {};
    }
    const found = clusterOfHost(host, lookup);
    if (!found.found) {
      log.debug('kubelet waiting: no cluster yet', { reason: found.reason });
      return retry;
    }
    if (!clusters.store.get(found.cluster)) return retry;
    const since = provisionedSince.get(key) ?? deps.clock.now();
    provisionedSince.set(key, since);
    const wait = since + ctx.joinDelayMs - deps.clock.now();
    if (wait > 0) return { requeueAfterMs: wait };

    const [userData, metaData] = await Promise.all([readSecret(host.spec?.userData, host), readSecret(host.spec?.metaData, host)]);
    if (userData === 'missing' || metaData === 'missing') return retry; // BMO would not have provisioned yet
    const consumer = consumerMetal3Machine(host)!;
    const plan = plannedNode({
      host,
      consumer,
      mode: modeOf(found.cluster, log),
      userData: secretText(userData, ['userData', 'value']),
      metaData: secretText(metaData, ['metaData']),
      kubeletVersion: found.machine?.spec?.version,
      now: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    if (!plan.join) {
      log.warn('kubelet cannot start; no Node', { reason: plan.reason });
      return {};
    }

    let client: Client | undefined;
    try {
      client = await ctx.clusterCache.get(found.cluster, { signal });
    } catch (error) {
      if (waiting(error)) return retry;
      throw error;
    }
    const nodes = client.api(NodeResource);
    const name = plan.node.metadata.name!;
    let owned = true;
    let registered: Node;
    try {
      const created = (registered = await nodes.create(plan.node));
      // Nodes may be created with status (the kubelet does); make sure this apiserver kept it.
      if (!created.status?.conditions?.length) await nodes.mergePatchStatus(name, { status: plan.node.status ?? {} });
      log.info('node registered', { cluster: clusterKeyString(found.cluster), node: name, providerID: plan.node.spec?.providerID ?? '' });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing: Node = (registered = await nodes.get(name));
      owned = existing.metadata.annotations?.[NODE_HOST_UID_ANNOTATION] === host.metadata.uid;
      log.info(owned ? 'node already registered' : 'adopting an existing Node of the same name', { node: name });
    }
    if (plan.controlPlane) {
      const version = found.machine?.spec?.version || plan.node.status?.nodeInfo?.kubeletVersion || 'v1.31.0';
      await startControlPlane(client, registered, plan.controlPlane, version, log);
      await ctx.runtimes?.start(found.cluster, name, log);
    }
    joined.set(key, {
      hostUid: host.metadata.uid!,
      consumer: consumerIdentity(host),
      cluster: found.cluster,
      nodeName: name,
      owned,
      controlPlane: !!plan.controlPlane,
    });
    return {};
  };

  const reconcile = async (request: Request, context: ReconcileContext): Promise<Result> => {
    const key = requestKey(request);
    const host = hosts.store.get(request);
    const entry = joined.get(key);
    const running = host !== undefined && shouldNodeExist(host);
    // Events coalesce: a host deprovisioned and provisioned again for another consumer between two
    // reconciles still needs its old Node removed and a new one registered.
    const stale = entry !== undefined && running && (entry.hostUid !== host.metadata.uid || entry.consumer !== consumerIdentity(host));
    if (!running || stale) {
      provisionedSince.delete(key);
      try {
        if (entry) await removeNode(entry, context.signal, context.log);
        else if (host?.status?.provisioning?.state === 'deprovisioning') await removeForgottenNodes(host, context.signal, context.log);
      } catch (error) {
        if (waiting(error)) return { requeueAfterMs: ctx.retryAfterMs };
        throw error;
      }
      joined.delete(key);
      if (!running) return {};
    }
    const current = joined.get(key);
    const rebooted = current?.poweredOff === true && !poweredOff(host);
    if (rebooted) joined.delete(key); // a new kubelet boots: it registers the Node again, or adopts it
    else if (current) return syncState(host, key, current, context); // the kubelet registered once
    const result = await join(host, key, context);
    let joinedNow = joined.get(key);
    // An adopted Node still says what the old kubelet's state made it say: the new one posts its own.
    if (rebooted && joinedNow && current.state) {
      joinedNow = { ...joinedNow, state: current.state };
      joined.set(key, joinedNow);
    }
    return joinedNow ? syncState(host, key, joinedNow, context) : result; // a kubelet NotReady from the start
  };

  return controllerFor('sim-kubelet', BareMetalHostResource, deps)
    .withEventFilter(inNamespace(ctx.namespace))
    .watches(Metal3MachineResource, metal3MachineToHost)
    .build(reconcile);
}
