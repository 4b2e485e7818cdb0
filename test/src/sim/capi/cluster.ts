// Simulator of Cluster API core's Cluster controller (v1beta1 contract, seeds 002/004).
//
// Covers: finalizer `cluster.cluster.x-k8s.io`; on the infrastructure cluster and the control plane
// object (any registered kind): a controller ownerReference to the Cluster and the
// `cluster.x-k8s.io/cluster-name` label; `status.infrastructureReady` / `status.controlPlaneReady`
// from their `status.ready`, the InfrastructureReady / ControlPlaneReady conditions mirrored from
// their Ready condition (or WaitingFor… fallbacks); `spec.controlPlaneEndpoint` copied back once the
// infrastructure is ready (or from the control plane) when the Cluster has none;
// `status.failureDomains`; failure reason/message surfaced from them; ControlPlaneInitialized (from
// the control plane's `status.initialized`, or from the first control-plane Machine with a nodeRef);
// phase Pending → Provisioning → Provisioned, Failed, Deleting; the Ready summary; observedGeneration.
// Deletion: deletes the MachineDeployments, MachineSets and Machines the Cluster owns (control-plane
// Machines only when no control-plane provider owns them), waits until no descendant is left, then
// deletes and waits for the control plane object and the infrastructure cluster, then lets go.
// A paused Cluster (`spec.paused` or the `cluster.x-k8s.io/paused` annotation) is not touched, nor is
// a referenced object carrying the paused annotation; CAPI core never writes the annotation itself.
//
// Does not cover: ClusterClass/topology, MachinePools, the v1beta2 conditions, events, the kubeconfig
// Secret CAPI creates for clusters without a control-plane provider (the workload-cluster simulator
// writes it), runtime hooks. Descendants are found by the cluster-name label or `spec.clusterName`
// (there are no defaulting webhooks in the test environment to add the label).
import type { Client, KubeObject, ObjectReference } from '@metal3-ts/generated';
import {
  type Cluster,
  ClusterResource,
  type Machine,
  MachineDeploymentResource,
  MachineResource,
  MachineSetResource,
} from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { ownerRequests } from '@metal3-ts/shared/controller/handlers';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { hasPausedAnnotation, isPaused } from '@metal3-ts/shared/meta/paused';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { lowestRequeue, type ReconcileContext, type Request, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import type { SimulatorDeps } from '../simulator.ts';
import {
  applyControlPlane,
  applyControlPlaneInitialized,
  applyInfrastructureCluster,
  type ClusterDescendants,
  finishClusterStatus,
  planClusterDeletion,
} from './cluster-status.ts';
import {
  CapiCondition,
  CLUSTER_FINALIZER,
  CLUSTER_NAME_LABEL,
  completeRef,
  type ContractObject,
  descriptorForRef,
  type FullReference,
  objectKey,
  referenceKey,
  takeOwnership,
} from './contract.ts';
import { deleteObject, ExternalWatches, runnableWithCleanup } from './contract-watch.ts';

export interface ClusterSimulatorOptions {
  /** Controller name (metrics, logs). Default `capi-cluster`. */
  readonly name?: string;
  /** Look again after this long while a referenced object does not exist yet (CAPI: 30 s). */
  readonly externalReadyWaitMs?: number;
  /** Look again after this long while descendants are being deleted (CAPI: 5 s). */
  readonly deleteRequeueMs?: number;
  readonly maxConcurrentReconciles?: number;
}

/** Cluster index: the referenceKey of every object a Cluster refers to. */
const CLUSTER_REFS_INDEX = 'capi-sim:cluster-refs';

function clusterRefs(cluster: Readonly<Cluster>): string[] {
  const namespace = cluster.metadata.namespace ?? '';
  const refs = [cluster.spec?.infrastructureRef, cluster.spec?.controlPlaneRef];
  return refs.flatMap((ref) => (ref?.apiVersion && ref.kind && ref.name ? [referenceKey(completeRef(ref, namespace))] : []));
}

/** The Cluster a CAPI object belongs to, by `spec.clusterName` (or the cluster-name label). */
export function clusterRequestOf(obj: Readonly<KubeObject & { spec?: { clusterName?: string } }>): Request[] {
  const name = obj.spec?.clusterName || obj.metadata.labels?.[CLUSTER_NAME_LABEL];
  return name && obj.metadata.namespace ? [{ namespace: obj.metadata.namespace, name }] : [];
}

/** Objects of the Cluster in its namespace: labelled with its name, or naming it in spec.clusterName. */
export function belongsToCluster(obj: Readonly<KubeObject & { spec?: { clusterName?: string } }>, cluster: Readonly<KubeObject>): boolean {
  const name = cluster.metadata.name;
  return obj.metadata.namespace === cluster.metadata.namespace && (obj.metadata.labels?.[CLUSTER_NAME_LABEL] === name || obj.spec?.clusterName === name);
}

export function clusterSimulator(deps: SimulatorDeps, options: ClusterSimulatorOptions = {}): Runnable[] {
  const { client, informers } = deps;
  const clusters = informers.informerFor(ClusterResource);
  clusters.addIndex(CLUSTER_REFS_INDEX, clusterRefs);
  const machines = informers.informerFor(MachineResource);
  const machineDeployments = informers.informerFor(MachineDeploymentResource);
  const machineSets = informers.informerFor(MachineSetResource);
  const watches = new ExternalWatches(informers, {
    map: (obj) => [...ownerRequests(obj, ClusterResource), ...clusters.store.byIndex(CLUSTER_REFS_INDEX, objectKey(obj)).map(requestOf)],
  });
  const reconciler = new ClusterReconciler(client, watches, { clusters, machines, machineDeployments, machineSets }, options);
  const controller = controllerFor(options.name ?? 'capi-cluster', ClusterResource, deps)
    .watches(MachineResource, clusterRequestOf)
    .watches(MachineSetResource, clusterRequestOf)
    .watches(MachineDeploymentResource, clusterRequestOf)
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2 })
    .build((request, ctx) => reconciler.reconcile(request, ctx));
  watches.deliverTo(controller);
  return [runnableWithCleanup(controller, () => watches.stop())];
}

function requestOf(obj: Readonly<KubeObject>): Request {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}

interface ClusterInformers {
  readonly clusters: Informer<Cluster>;
  readonly machines: Informer<Machine>;
  readonly machineDeployments: Informer<KubeObject>;
  readonly machineSets: Informer<KubeObject>;
}

class ClusterReconciler {
  readonly #client: Client;
  readonly #watches: ExternalWatches;
  readonly #informers: ClusterInformers;
  readonly #externalReadyWaitMs: number;
  readonly #deleteRequeueMs: number;

  constructor(client: Client, watches: ExternalWatches, informers: ClusterInformers, options: ClusterSimulatorOptions) {
    this.#client = client;
    this.#watches = watches;
    this.#informers = informers;
    this.#externalReadyWaitMs = options.externalReadyWaitMs ?? 30_000;
    this.#deleteRequeueMs = options.deleteRequeueMs ?? 5_000;
  }

  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    const cached = this.#informers.clusters.store.get(request);
    if (!cached) return {};
    if (isPaused(cached, cached)) {
      ctx.log.debug('Reconciliation is paused for this object');
      return {};
    }
    const api = this.#client.api(ClusterResource, cached.metadata.namespace);
    if (cached.metadata.deletionTimestamp) {
      return hasFinalizer(cached, CLUSTER_FINALIZER) ? this.#reconcileDelete(cached, ctx) : {};
    }
    const current = (await ensureFinalizer(api, cached as Cluster, CLUSTER_FINALIZER)) ?? cached;
    const cluster = structuredClone(current) as Cluster;
    const patch = new PatchHelper(cluster, api);
    let result: Result = {};
    const errors: unknown[] = [];
    for (const phase of [() => this.#reconcileInfrastructure(cluster, ctx), () => this.#reconcileControlPlane(cluster, ctx)]) {
      try {
        result = lowestRequeue(result, await phase());
      } catch (error) {
        errors.push(error);
      }
    }
    applyControlPlaneInitialized(cluster, this.#machinesOf(cluster));
    finishClusterStatus(cluster);
    await patch.patch(cluster, { ownedConditions: [CapiCondition.Ready, CapiCondition.ControlPlaneReady, CapiCondition.InfrastructureReady] });
    if (errors.length > 0) throw errors.length === 1 ? errors[0] : new AggregateError(errors, `Cluster ${request.namespace}/${request.name}`);
    return result;
  }

  async #reconcileInfrastructure(cluster: Cluster, ctx: ReconcileContext): Promise<Result> {
    const ref = cluster.spec?.infrastructureRef;
    if (!ref) return {};
    const infra = await this.#adopt(cluster, completeRef(ref, cluster.metadata.namespace ?? ''), ctx);
    if (infra === 'missing') return { requeueAfterMs: this.#externalReadyWaitMs };
    if (infra !== 'paused') applyInfrastructureCluster(cluster, infra);
    return {};
  }

  async #reconcileControlPlane(cluster: Cluster, ctx: ReconcileContext): Promise<Result> {
    const ref = cluster.spec?.controlPlaneRef;
    if (!ref) return {};
    const controlPlane = await this.#adopt(cluster, completeRef(ref, cluster.metadata.namespace ?? ''), ctx);
    if (controlPlane === 'missing') return { requeueAfterMs: this.#externalReadyWaitMs };
    if (controlPlane !== 'paused') applyControlPlane(cluster, controlPlane);
    return {};
  }

  /** CAPI's reconcileExternal: read the object, take ownership of it unless it is paused. */
  async #adopt(cluster: Cluster, ref: FullReference, ctx: ReconcileContext): Promise<Readonly<ContractObject> | 'missing' | 'paused'> {
    const obj = await this.#watches.get(ref, ctx.signal);
    if (!obj) {
      ctx.log.info('Could not find external object for cluster, requeuing', { refKind: ref.kind, refName: ref.name });
      return 'missing';
    }
    if (hasPausedAnnotation(obj)) return 'paused';
    const owned = structuredClone(obj) as ContractObject;
    if (!takeOwnership(owned, cluster, cluster.metadata.name ?? '')) return obj;
    const api = this.#client.api(descriptorForRef(ref), ref.namespace);
    const written = await new PatchHelper<KubeObject>(obj as KubeObject, api).patch(owned);
    return (written as ContractObject | undefined) ?? owned;
  }

  async #reconcileDelete(cached: Readonly<Cluster>, ctx: ReconcileContext): Promise<Result> {
    const api = this.#client.api(ClusterResource, cached.metadata.namespace);
    const cluster = structuredClone(cached) as Cluster;
    const patch = new PatchHelper(cluster, api);
    const namespace = cluster.metadata.namespace ?? '';
    const read = async (ref: ObjectReference | undefined) => (ref ? await this.#watches.get(completeRef(ref, namespace), ctx.signal) : undefined);
    const controlPlane = await read(cluster.spec?.controlPlaneRef);
    const infrastructure = await read(cluster.spec?.infrastructureRef);
    const plan = planClusterDeletion(cluster, this.#descendantsOf(cluster), controlPlane, infrastructure);
    for (const obj of plan.delete) {
      ctx.log.info('Deleting object of the Cluster', { kind: obj.kind, name: obj.metadata.name });
      await deleteObject(this.#client, obj);
    }
    finishClusterStatus(cluster);
    const written = await patch.patch(cluster, { ownedConditions: [CapiCondition.Ready, CapiCondition.ControlPlaneReady, CapiCondition.InfrastructureReady] });
    if (plan.waitingFor !== undefined) {
      ctx.log.info('Cluster still has objects to wait for', { waitingFor: plan.waitingFor });
      return plan.waitingFor.startsWith('descendants') ? { requeueAfterMs: this.#deleteRequeueMs } : {};
    }
    await removeFinalizerGuarded(api, written ?? cluster, CLUSTER_FINALIZER);
    return {};
  }

  #machinesOf(cluster: Readonly<Cluster>): readonly Readonly<Machine>[] {
    return this.#informers.machines.store.list(cluster.metadata.namespace).filter((m) => belongsToCluster(m, cluster));
  }

  #descendantsOf(cluster: Readonly<Cluster>): ClusterDescendants {
    const of = (informer: Informer<KubeObject>) => informer.store.list(cluster.metadata.namespace).filter((o) => belongsToCluster(o, cluster));
    return {
      machineDeployments: of(this.#informers.machineDeployments),
      machineSets: of(this.#informers.machineSets),
      machines: this.#machinesOf(cluster),
    };
  }
}
