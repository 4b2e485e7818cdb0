// Simulator of Cluster API core's Machine controller (v1beta1 contract, seeds 002/004; CAPI v1.10).
//
// Covers: finalizer `machine.cluster.x-k8s.io`; the cluster-name label on the Machine and its
// Cluster as (non-controller) owner of stand-alone Machines; on the bootstrap config and the
// infrastructure machine (any registered kind): the Machine as controller owner (dropping the
// MachineSet/control-plane owner their creator set) and the cluster-name label;
// `spec.bootstrap.dataSecretName` from the config's `status.dataSecretName` once `status.ready`;
// `spec.providerID`, `spec.failureDomain` and `status.addresses` from the infrastructure machine once
// ready; `status.bootstrapReady`/`infrastructureReady` and the BootstrapReady/InfrastructureReady
// conditions (mirrored from the providers' Ready condition, or WaitingFor… fallbacks); failures
// surfaced from either; `status.nodeRef`/`nodeInfo` from the workload-cluster Node whose
// `spec.providerID` matches (read through the harness ClusterCache and the `<cluster>-kubeconfig`
// Secret) and NodeHealthy from its conditions; phases Pending → Provisioning → Provisioned → Running,
// Failed, Deleting (with `lastUpdated`); Ready summary; observedGeneration. A paused Cluster or
// Machine is not touched.
// Deletion: waits for pre-drain/pre-terminate hook annotations, deletes the infrastructure machine
// and waits until it is gone, then the bootstrap config, then deletes the Node in the workload
// cluster when CAPI would (nodeRef set, Cluster not being deleted, another active control-plane
// Machine left; failures retried until `spec.nodeDeletionTimeout`, 10 s by default), then lets go.
//
// Does not cover: Node draining and volume-detach waits, Node label/annotation/taint sync, the
// certificate-expiry and interruptible labels, MachineHealthCheck conditions, v1beta2 conditions,
// events, in-place updates. CAPI watches workload Nodes; the simulator polls the workload cluster
// (`nodePollMs` while waiting for a Node, `nodeResyncMs` once Running).
import type { Client, KubeObject } from '@metal3-ts/generated';
import { type Cluster, ClusterResource, type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Secret, SecretResource } from '@metal3-ts/generated/core/v1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { conditionTimestamp } from '@metal3-ts/shared/conditions/types';
import { markFalse } from '@metal3-ts/shared/conditions/set';
import { controllerFor } from '@metal3-ts/shared/controller/builder';
import { ownerRequests } from '@metal3-ts/shared/controller/handlers';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { apiGroupOf, setOwnerReference } from '@metal3-ts/shared/meta/owner-references';
import { hasPausedAnnotation, isPaused } from '@metal3-ts/shared/meta/paused';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { lowestRequeue, type ReconcileContext, type Request, type Result } from '@metal3-ts/shared/reconcile/reconcile';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { SimulatorDeps } from '../simulator.ts';
import {
  CAPI_GROUP,
  CapiCondition,
  CapiReason,
  CLUSTER_NAME_LABEL,
  completeRef,
  type ContractObject,
  descriptorForRef,
  type FullReference,
  isControlPlaneMachine,
  MACHINE_FINALIZER,
  objectKey,
  type OnCreateOwner,
  referenceKey,
  takeOwnership,
} from './contract.ts';
import { deleteObject, ExternalWatches, runnableWithCleanup } from './contract-watch.ts';
import { WorkloadNodes } from './machine-node.ts';
import {
  applyBootstrap,
  applyInfrastructure,
  applyNode,
  finishMachineStatus,
  nextMachineDeletionStep,
  nodeDeletionBlocker,
  nodeDeletionTimedOut,
  type PhaseOutcome,
  shouldAdopt,
} from './machine-status.ts';

export interface MachineSimulatorOptions {
  /** Controller name (metrics, logs). Default `capi-machine`. */
  readonly name?: string;
  /** Look again after this long while a referenced object does not exist yet (CAPI: 30 s). */
  readonly externalReadyWaitMs?: number;
  /** Ask the workload cluster again after this long while the Machine waits for its Node. Default 200 ms. */
  readonly nodePollMs?: number;
  /** Look at the Node of a Running Machine again after this long (health, disappearance). Default 10 s. */
  readonly nodeResyncMs?: number;
  /** Workload-cluster clients; default: a ClusterCache of our own, closed when the simulator stops. */
  readonly clusterCache?: ClusterCache;
  readonly maxConcurrentReconciles?: number;
}

const MACHINE_REFS_INDEX = 'capi-sim:machine-refs';
const MACHINE_CLUSTER_INDEX = 'capi-sim:machine-cluster';
const KUBECONFIG_SUFFIX = '-kubeconfig';
const OWNED_CONDITIONS = [CapiCondition.Ready, CapiCondition.BootstrapReady, CapiCondition.InfrastructureReady, CapiCondition.NodeHealthy];

function machineRefs(machine: Readonly<Machine>): string[] {
  const namespace = machine.metadata.namespace ?? '';
  const refs = [machine.spec?.infrastructureRef, machine.spec?.bootstrap?.configRef];
  return refs.flatMap((ref) => (ref?.apiVersion && ref.kind && ref.name ? [referenceKey(completeRef(ref, namespace))] : []));
}

const machineCluster = (machine: Readonly<Machine>): string[] => machine.spec?.clusterName ? [`${machine.metadata.namespace}/${machine.spec.clusterName}`] : [];

const requestOf = (obj: Readonly<KubeObject>): Request => ({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });

export function machineSimulator(deps: SimulatorDeps, options: MachineSimulatorOptions = {}): Runnable[] {
  const { client, informers } = deps;
  const machines = informers.informerFor(MachineResource);
  machines.addIndex(MACHINE_REFS_INDEX, machineRefs);
  machines.addIndex(MACHINE_CLUSTER_INDEX, machineCluster);
  const clusters = informers.informerFor(ClusterResource);
  const secrets = informers.informerFor(SecretResource);
  const ownCache = options.clusterCache === undefined;
  const cache = options.clusterCache ??
    new ClusterCache(client, { secretReader: (key) => secrets.store.get(key), log: deps.log, closeGraceMs: 100, probeTimeoutMs: 2_000 });
  const watches = new ExternalWatches(informers, {
    map: (obj) => [...ownerRequests(obj, MachineResource), ...machines.store.byIndex(MACHINE_REFS_INDEX, objectKey(obj)).map(requestOf)],
  });
  const machinesOfCluster = (namespace: string | undefined, name: string) =>
    machines.store.byIndex(MACHINE_CLUSTER_INDEX, `${namespace}/${name}`).map(requestOf);
  const reconciler = new MachineReconciler(client, watches, new WorkloadNodes(cache), { machines, clusters }, options);
  const controller = controllerFor(options.name ?? 'capi-machine', MachineResource, deps)
    .watches(ClusterResource, (cluster) => machinesOfCluster(cluster.metadata.namespace, cluster.metadata.name ?? ''))
    .watches(SecretResource, (secret: Readonly<Secret>) => {
      const name = secret.metadata.name ?? '';
      return name.endsWith(KUBECONFIG_SUFFIX) ? machinesOfCluster(secret.metadata.namespace, name.slice(0, -KUBECONFIG_SUFFIX.length)) : [];
    })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4 })
    .build((request, ctx) => reconciler.reconcile(request, ctx));
  watches.deliverTo(controller);
  return [
    runnableWithCleanup(controller, () => {
      watches.stop();
      if (ownCache) cache.close();
    }),
  ];
}

interface MachineInformers {
  readonly machines: Informer<Machine>;
  readonly clusters: Informer<Cluster>;
}

/** What one reconcile learned, to decide when to look again. */
interface Pass {
  result: Result;
  readonly errors: unknown[];
}

class MachineReconciler {
  readonly #client: Client;
  readonly #watches: ExternalWatches;
  readonly #nodes: WorkloadNodes;
  readonly #informers: MachineInformers;
  readonly #externalReadyWaitMs: number;
  readonly #nodePollMs: number;
  readonly #nodeResyncMs: number;

  constructor(client: Client, watches: ExternalWatches, nodes: WorkloadNodes, informers: MachineInformers, options: MachineSimulatorOptions) {
    this.#client = client;
    this.#watches = watches;
    this.#nodes = nodes;
    this.#informers = informers;
    this.#externalReadyWaitMs = options.externalReadyWaitMs ?? 30_000;
    this.#nodePollMs = options.nodePollMs ?? 200;
    this.#nodeResyncMs = options.nodeResyncMs ?? 10_000;
  }

  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    const cached = this.#informers.machines.store.get(request);
    if (!cached) return {};
    const isDeleting = cached.metadata.deletionTimestamp !== undefined;
    const cluster = this.#informers.clusters.store.get({ namespace: cached.metadata.namespace, name: cached.spec?.clusterName ?? '' });
    if (!cluster && !isDeleting) {
      ctx.log.info('Waiting for the Cluster of the Machine', { cluster: cached.spec?.clusterName });
      return {};
    }
    if (isPaused(cluster, cached)) {
      ctx.log.debug('Reconciliation is paused for this object');
      return {};
    }
    if (isDeleting && !hasFinalizer(cached, MACHINE_FINALIZER)) return {};
    const api = this.#client.api(MachineResource, cached.metadata.namespace);
    const current = isDeleting ? cached : ((await ensureFinalizer(api, cached as Machine, MACHINE_FINALIZER)) ?? cached);
    const machine = structuredClone(current) as Machine;
    const patch = new PatchHelper(machine, api);
    machine.metadata.labels = { ...machine.metadata.labels, [CLUSTER_NAME_LABEL]: machine.spec?.clusterName ?? '' };
    if (cluster && !isDeleting && shouldAdopt(machine)) setOwnerReference(machine, cluster);

    const pass: Pass = { result: {}, errors: [] };
    const bootstrap = await this.#step(pass, () => this.#reconcileBootstrap(machine, cluster, ctx));
    const infra = await this.#step(pass, () => this.#reconcileInfrastructure(machine, cluster, ctx));
    let finished = false;
    if (!isDeleting) await this.#step(pass, () => this.#reconcileNode(machine, ctx));
    else finished = (await this.#step(pass, () => this.#reconcileDelete(machine, cluster, bootstrap, infra, ctx))) ?? false;

    finishMachineStatus(machine, conditionTimestamp());
    const written = await patch.patch(machine, { ownedConditions: OWNED_CONDITIONS });
    if (finished && pass.errors.length === 0) await removeFinalizerGuarded(api, written ?? machine, MACHINE_FINALIZER);
    if (pass.errors.length > 0) {
      throw pass.errors.length === 1 ? pass.errors[0] : new AggregateError(pass.errors, `Machine ${request.namespace}/${request.name}`);
    }
    return pass.result;
  }

  /** Runs one phase; its error is kept for the end of the reconcile (the status is patched first). */
  async #step<T>(pass: Pass, phase: () => Promise<{ value?: T; result?: Result }>): Promise<T | undefined> {
    try {
      const { value, result } = await phase();
      if (result) pass.result = lowestRequeue(pass.result, result);
      return value;
    } catch (error) {
      pass.errors.push(error);
      return undefined;
    }
  }

  #outcome(outcome: PhaseOutcome): Result {
    return outcome === 'missing' ? { requeueAfterMs: this.#externalReadyWaitMs } : {};
  }

  async #reconcileBootstrap(machine: Machine, cluster: Readonly<Cluster> | undefined, ctx: ReconcileContext) {
    const ref = machine.spec?.bootstrap?.configRef;
    if (!ref) return { result: this.#outcome(applyBootstrap(machine, undefined)) };
    const config = await this.#adopt(machine, cluster, completeRef(ref, machine.metadata.namespace ?? ''), ctx);
    return { value: config === 'missing' ? undefined : config, result: this.#outcome(applyBootstrap(machine, config)) };
  }

  async #reconcileInfrastructure(machine: Machine, cluster: Readonly<Cluster> | undefined, ctx: ReconcileContext) {
    const infra = await this.#adopt(machine, cluster, completeRef(machine.spec?.infrastructureRef, machine.metadata.namespace ?? ''), ctx);
    return { value: infra === 'missing' ? undefined : infra, result: this.#outcome(applyInfrastructure(machine, infra)) };
  }

  async #reconcileNode(machine: Machine, ctx: ReconcileContext) {
    const providerID = machine.spec?.providerID;
    const lookup = providerID
      ? await this.#nodes.find({ namespace: machine.metadata.namespace ?? '', name: machine.spec?.clusterName ?? '' }, providerID, ctx.signal)
      : undefined;
    if (providerID && !lookup) ctx.log.info('Workload cluster not reachable yet, will ask again', { cluster: machine.spec?.clusterName });
    const outcome = applyNode(machine, providerID ? lookup : { node: undefined });
    if (outcome === 'waiting') return { result: providerID ? { requeueAfterMs: this.#nodePollMs } : {} };
    return { result: { requeueAfterMs: this.#nodeResyncMs } };
  }

  /** Deletion after the bootstrap and infrastructure phases ran: returns whether the finalizer may go. */
  async #reconcileDelete(
    machine: Machine,
    cluster: Readonly<Cluster> | undefined,
    bootstrap: Readonly<ContractObject> | undefined,
    infra: Readonly<ContractObject> | undefined,
    ctx: ReconcileContext,
  ): Promise<{ value: boolean }> {
    markFalse(machine, CapiCondition.NodeHealthy, CapiReason.Deleting, 'Info');
    const controlPlaneRef = cluster?.spec?.controlPlaneRef;
    const controlPlane = controlPlaneRef ? await this.#watches.get(completeRef(controlPlaneRef, cluster.metadata.namespace ?? ''), ctx.signal) : undefined;
    const siblings = cluster ? this.#informers.machines.store.byIndex(MACHINE_CLUSTER_INDEX, `${cluster.metadata.namespace}/${cluster.metadata.name}`) : [];
    const blocker = nodeDeletionBlocker(cluster, machine, controlPlane, siblings);
    if (blocker && machine.status?.nodeRef) ctx.log.info('Skipping deletion of the Node of the Machine', { reason: blocker });
    let nodeDeleted = false;
    for (;;) {
      const step = nextMachineDeletionStep(machine, blocker === undefined, infra, bootstrap, nodeDeleted);
      switch (step.step) {
        case 'wait':
          ctx.log.info('Machine deletion waits', { for: step.for });
          return { value: false };
        case 'delete':
          ctx.log.info('Deleting object of the Machine', { kind: step.object.kind, name: step.object.metadata.name });
          await deleteObject(this.#client, step.object);
          return { value: false };
        case 'delete-node':
          await this.#deleteNode(machine, step.node, ctx);
          nodeDeleted = true;
          continue;
        case 'done':
          return { value: true };
      }
    }
  }

  async #deleteNode(machine: Machine, node: string, ctx: ReconcileContext): Promise<void> {
    const cluster = { namespace: machine.metadata.namespace ?? '', name: machine.spec?.clusterName ?? '' };
    try {
      const outcome = await this.#nodes.delete(cluster, node, ctx.signal);
      ctx.log.info(outcome === 'deleted' ? 'Deleted the Node of the Machine' : 'Workload cluster unreachable: not deleting the Node', { node });
    } catch (error) {
      markFalse(machine, CapiCondition.NodeHealthy, CapiReason.DeletionFailed, 'Warning');
      if (!nodeDeletionTimedOut(machine, Date.now())) throw error;
      ctx.log.info('Node deletion timeout expired, continuing without Node deletion', { node, error: String(error) });
    }
  }

  /**
   * CAPI's reconcileExternal for a Machine: read the referenced object and take ownership of it
   * (unless it carries the paused annotation, or the Cluster is gone during deletion).
   */
  async #adopt(
    machine: Machine,
    cluster: Readonly<Cluster> | undefined,
    ref: FullReference,
    ctx: ReconcileContext,
  ): Promise<Readonly<ContractObject> | 'missing'> {
    const obj = await this.#watches.get(ref, ctx.signal);
    if (!obj) {
      ctx.log.info('Could not find the referenced object, requeuing', { refKind: ref.kind, refName: ref.name });
      return 'missing';
    }
    if (!cluster || hasPausedAnnotation(obj) || obj.metadata.deletionTimestamp) return obj;
    const owned = structuredClone(obj) as ContractObject;
    if (!takeOwnership(owned, machine, machine.spec?.clusterName ?? '', onCreateOwners(machine, cluster))) return obj;
    const api = this.#client.api(descriptorForRef(ref), ref.namespace);
    const written = await new PatchHelper<KubeObject>(obj as KubeObject, api).patch(owned);
    return (written as ContractObject | undefined) ?? owned;
  }
}

/** The owners a creator sets before the Machine exists: its MachineSet, or the control plane of a control-plane Machine. */
function onCreateOwners(machine: Readonly<Machine>, cluster: Readonly<Cluster>): OnCreateOwner[] {
  const owners: OnCreateOwner[] = [{ group: CAPI_GROUP, kind: 'MachineSet' }];
  const cp = cluster.spec?.controlPlaneRef;
  if (cp?.apiVersion && cp.kind && isControlPlaneMachine(machine)) {
    owners.push({ group: apiGroupOf(cp.apiVersion) ?? '', kind: cp.kind });
  }
  return owners;
}
