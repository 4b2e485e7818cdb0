// The Cluster controller's decisions, as pure functions over in-memory copies: what a Cluster takes
// from its infrastructure cluster and control plane, its phase, its conditions, and the order in
// which a deleted Cluster takes its objects down (CAPI v1beta1 `cluster_controller*.go`).
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster, ClusterStatus, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { isTrue } from '@metal3-ts/shared/conditions/get';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import {
  CapiCondition,
  CapiReason,
  type ContractObject,
  controlPlaneEndpointOf,
  failureDomainsOf,
  failuresFrom,
  gvkString,
  isControlPlaneMachine,
  isInitialized,
  isReady,
  isValidEndpoint,
  mirrorReadyCondition,
} from './contract.ts';

export type ClusterPhase = NonNullable<ClusterStatus['phase']>;

/** CAPI's reconcilePhase: later rules win; a Cluster with no rule matching keeps its phase. */
export function clusterPhase(cluster: Readonly<Cluster>): ClusterPhase {
  let phase: ClusterPhase = cluster.status?.phase ?? 'Pending';
  if (cluster.spec?.infrastructureRef || cluster.spec?.controlPlaneRef) phase = 'Provisioning';
  if (cluster.status?.infrastructureReady === true && isValidEndpoint(cluster.spec?.controlPlaneEndpoint)) phase = 'Provisioned';
  if (cluster.status?.failureReason || cluster.status?.failureMessage) phase = 'Failed';
  if (cluster.metadata.deletionTimestamp) phase = 'Deleting';
  return phase;
}

/** Terminal failures of a referenced object surface on the Cluster, as CAPI words them. */
function surfaceFailures(cluster: Cluster, obj: Readonly<ContractObject>): void {
  const { reason, message } = failuresFrom(obj);
  const status = (cluster.status ??= {});
  if (reason) status.failureReason = reason;
  if (message) status.failureMessage = `Failure detected from referenced resource ${gvkString(obj)} with name "${obj.metadata.name}": ${message}`;
}

/**
 * reconcileInfrastructure: readiness and the InfrastructureReady condition from the infrastructure
 * cluster; once it is ready, the control-plane endpoint (only when the Cluster has none) and the
 * failure domains. An infrastructure cluster being deleted is left alone.
 */
export function applyInfrastructureCluster(cluster: Cluster, infra: Readonly<ContractObject>): void {
  surfaceFailures(cluster, infra);
  if (infra.metadata.deletionTimestamp) return;
  const ready = isReady(infra);
  const status = (cluster.status ??= {});
  status.infrastructureReady = ready;
  mirrorReadyCondition(cluster, CapiCondition.InfrastructureReady, infra, { ready, reason: CapiReason.WaitingForInfrastructure });
  if (!ready) return;
  const spec = (cluster.spec ??= {});
  if (!isValidEndpoint(spec.controlPlaneEndpoint)) {
    const endpoint = controlPlaneEndpointOf(infra);
    if (endpoint) spec.controlPlaneEndpoint = endpoint;
  }
  const domains = failureDomainsOf(infra);
  if (domains) status.failureDomains = domains;
  else delete status.failureDomains;
}

/**
 * reconcileControlPlane: readiness, ControlPlaneReady, ControlPlaneInitialized (set once, never
 * taken back) and the endpoint when the Cluster has none.
 */
export function applyControlPlane(cluster: Cluster, controlPlane: Readonly<ContractObject>): void {
  surfaceFailures(cluster, controlPlane);
  if (controlPlane.metadata.deletionTimestamp) return;
  const ready = isReady(controlPlane);
  (cluster.status ??= {}).controlPlaneReady = ready;
  mirrorReadyCondition(cluster, CapiCondition.ControlPlaneReady, controlPlane, { ready, reason: CapiReason.WaitingForControlPlane });
  if (!isTrue(cluster, CapiCondition.ControlPlaneInitialized)) {
    if (isInitialized(controlPlane)) markTrue(cluster, CapiCondition.ControlPlaneInitialized);
    else {
      markFalse(
        cluster,
        CapiCondition.ControlPlaneInitialized,
        CapiReason.WaitingForControlPlaneProviderInitialized,
        'Info',
        'Waiting for control plane provider to indicate the control plane has been initialized',
      );
    }
  }
  const spec = (cluster.spec ??= {});
  if (!isValidEndpoint(spec.controlPlaneEndpoint)) {
    const endpoint = controlPlaneEndpointOf(controlPlane);
    if (endpoint) spec.controlPlaneEndpoint = endpoint;
  }
}

/**
 * reconcileControlPlaneInitialized, for Clusters without a control-plane provider: initialized once
 * any active control-plane Machine has a nodeRef.
 */
export function applyControlPlaneInitialized(cluster: Cluster, machines: readonly Readonly<Machine>[]): void {
  if (cluster.spec?.controlPlaneRef || isTrue(cluster, CapiCondition.ControlPlaneInitialized)) return;
  const initialized = machines.some((m) => !m.metadata.deletionTimestamp && isControlPlaneMachine(m) && m.status?.nodeRef);
  if (initialized) markTrue(cluster, CapiCondition.ControlPlaneInitialized);
  else {
    markFalse(
      cluster,
      CapiCondition.ControlPlaneInitialized,
      CapiReason.MissingNodeRef,
      'Info',
      'Waiting for the first control plane machine to have its status.nodeRef set',
    );
  }
}

/** The status every reconcile ends with: phase, Ready summary, observedGeneration. */
export function finishClusterStatus(cluster: Cluster): void {
  const status = (cluster.status ??= {});
  status.phase = clusterPhase(cluster);
  setReadySummary(cluster, [CapiCondition.ControlPlaneReady, CapiCondition.InfrastructureReady]);
  if (!cluster.metadata.deletionTimestamp && cluster.metadata.generation !== undefined) status.observedGeneration = cluster.metadata.generation;
}

// ---- deletion ---------------------------------------------------------------------------------------

/** Everything labelled with the Cluster's name in its namespace. */
export interface ClusterDescendants {
  readonly machineDeployments: readonly Readonly<KubeObject>[];
  readonly machineSets: readonly Readonly<KubeObject>[];
  readonly machines: readonly Readonly<Machine>[];
}

/** What to do next for a Cluster being deleted; `waitingFor` undefined means: remove the finalizer. */
export interface ClusterDeletionPlan {
  /** Objects to delete now (none of them is already being deleted). */
  readonly delete: readonly Readonly<KubeObject>[];
  /** What the Cluster still waits for, for logs; undefined when nothing is left. */
  readonly waitingFor: string | undefined;
}

function ownedByCluster(obj: Readonly<KubeObject>, cluster: Readonly<Cluster>): boolean {
  return (obj.metadata.ownerReferences ?? []).some(
    (ref) => apiGroupOf(ref.apiVersion) === apiGroupOf(cluster.apiVersion) && ref.kind === cluster.kind && ref.name === cluster.metadata.name,
  );
}

const names = (objects: readonly Readonly<KubeObject>[]): string => objects.map((o) => o.metadata.name).join(',');

/**
 * reconcileDelete, one step per call (the caller applies it and comes back on the next event):
 *   1. descendants (MachineDeployments, MachineSets, worker Machines, then control-plane Machines when
 *      no control-plane provider owns them): delete those the Cluster owns, wait until none is left
 *      (the others go with their owners);
 *   2. the control plane object: delete, wait until gone;
 *   3. the infrastructure cluster: delete, wait until gone;
 *   4. done.
 * `controlPlane`/`infrastructure` are undefined when the Cluster has no such ref or the object is gone.
 * Mutates the Cluster's ControlPlaneReady/InfrastructureReady conditions as CAPI does on the way.
 */
export function planClusterDeletion(
  cluster: Cluster,
  descendants: ClusterDescendants,
  controlPlane: Readonly<ContractObject> | undefined,
  infrastructure: Readonly<ContractObject> | undefined,
): ClusterDeletionPlan {
  const controlPlaneMachines = cluster.spec?.controlPlaneRef ? [] : descendants.machines.filter(isControlPlaneMachine);
  const workerMachines = descendants.machines.filter((m) => !isControlPlaneMachine(m));
  const all = [...descendants.machineDeployments, ...descendants.machineSets, ...workerMachines, ...controlPlaneMachines];
  if (all.length > 0) {
    const owned = all.filter((o) => ownedByCluster(o, cluster) && !o.metadata.deletionTimestamp);
    return { delete: owned, waitingFor: `descendants ${names(all)}` };
  }
  if (cluster.spec?.controlPlaneRef) {
    if (controlPlane) {
      mirrorReadyCondition(cluster, CapiCondition.ControlPlaneReady, controlPlane, { ready: false, reason: CapiReason.Deleting });
      return { delete: controlPlane.metadata.deletionTimestamp ? [] : [controlPlane], waitingFor: `control plane ${controlPlane.metadata.name}` };
    }
    markFalse(cluster, CapiCondition.ControlPlaneReady, CapiReason.Deleted, 'Info');
  }
  if (cluster.spec?.infrastructureRef) {
    if (infrastructure) {
      mirrorReadyCondition(cluster, CapiCondition.InfrastructureReady, infrastructure, { ready: false, reason: CapiReason.Deleting });
      return { delete: infrastructure.metadata.deletionTimestamp ? [] : [infrastructure], waitingFor: `infrastructure ${infrastructure.metadata.name}` };
    }
    markFalse(cluster, CapiCondition.InfrastructureReady, CapiReason.Deleted, 'Info');
  }
  return { delete: [], waitingFor: undefined };
}
