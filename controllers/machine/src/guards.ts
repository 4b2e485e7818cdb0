// What a reconcile of one Metal3Machine may do, decided from the scope alone (research M-9…M-17,
// M-20, seed 002). Order: not ours, paused, deletion, owner Machine, Cluster, terminal failure,
// Cluster infrastructure, Metal3Cluster.
//
// Changed from upstream (docs/compatibility.md):
// - deletion needs neither the owner Machine, nor the Cluster, nor its infrastructure, nor the
//   Metal3Cluster (E-12; seed 002: "this check should not be blocking any further delete
//   reconciliation flows"): a host is never left claimed by a Metal3Machine whose cluster is gone;
// - a missing owner Machine or Cluster is a wait with a condition, woken by the object's creation,
//   not an error retried with backoff (M-9) or empty failure fields (M-11, E-6);
// - a Metal3Machine with failureReason/failureMessage set is not reconciled any further (seed 002).
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isTrue } from '@metal3-ts/shared/conditions/get';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { METAL3_MACHINE_FINALIZER } from './names.ts';
import type { MachineReads } from './scope.ts';
import type { CachedMachine } from './projections.ts';

export type Guard =
  /** Being deleted without our finalizer: nothing of ours to clean up. */
  | { readonly kind: 'NotOurs' }
  /** M-16: the Cluster or the Metal3Machine is paused; only the pause itself is reconciled. */
  | { readonly kind: 'Paused' }
  /** Section 4. */
  | { readonly kind: 'Delete' }
  /** M-9: Cluster API has not adopted the object yet. */
  | { readonly kind: 'WaitForOwnerRef' }
  /** M-9: the owner Machine does not exist (yet). */
  | { readonly kind: 'WaitForMachine'; readonly name: string }
  /** M-11: the Machine names no Cluster, or that Cluster does not exist (yet). */
  | { readonly kind: 'WaitForCluster'; readonly message: string }
  /** Seed 002: a terminal failure was reported; only deletion helps. */
  | { readonly kind: 'Failed' }
  /** M-12. */
  | { readonly kind: 'WaitForInfrastructure' }
  /** M-13. */
  | { readonly kind: 'WaitForMetal3Cluster' }
  | {
    readonly kind: 'Reconcile';
    readonly machine: Readonly<CachedMachine>;
    readonly cluster: Readonly<Cluster>;
    readonly metal3Cluster: Readonly<Metal3Cluster>;
  };

/** Cluster API v1beta1: `status.infrastructureReady`, or the InfrastructureReady condition (§0.7). */
export function isInfrastructureReady(cluster: Readonly<Cluster>): boolean {
  return cluster.status?.infrastructureReady === true || isTrue(cluster, 'InfrastructureReady');
}

export function hasFailed(m3m: Readonly<Metal3Machine>): boolean {
  return !!m3m.status?.failureReason || !!m3m.status?.failureMessage;
}

export function guard(scope: Pick<MachineReads, 'cached' | 'machineRef' | 'machine' | 'clusterName' | 'cluster' | 'metal3Cluster'>): Guard {
  const { cached: m3m, machine, cluster } = scope;
  if (m3m.metadata.deletionTimestamp && !hasFinalizer(m3m, METAL3_MACHINE_FINALIZER)) return { kind: 'NotOurs' };
  if (isPaused(cluster, m3m)) return { kind: 'Paused' };
  if (m3m.metadata.deletionTimestamp) return { kind: 'Delete' };
  if (!scope.machineRef) return { kind: 'WaitForOwnerRef' };
  if (!machine) return { kind: 'WaitForMachine', name: scope.machineRef.name };
  if (!scope.clusterName) return { kind: 'WaitForCluster', message: `Machine ${machine.metadata.name ?? ''} has no cluster.x-k8s.io/cluster-name label` };
  if (!cluster) return { kind: 'WaitForCluster', message: `Cluster ${scope.clusterName} not found` };
  if (hasFailed(m3m)) return { kind: 'Failed' };
  if (!isInfrastructureReady(cluster)) return { kind: 'WaitForInfrastructure' };
  if (!scope.metal3Cluster) return { kind: 'WaitForMetal3Cluster' };
  return { kind: 'Reconcile', machine, cluster, metal3Cluster: scope.metal3Cluster };
}

/**
 * M-20: bootstrap data is ready when the Machine's bootstrap config reports ready (a configRef is
 * set) or when a data Secret is named directly.
 */
export function isBootstrapReady(machine: Readonly<CachedMachine>): boolean {
  const bootstrap = machine.spec?.bootstrap;
  if (bootstrap?.configRef) return machine.status?.bootstrapReady === true || isTrue(machine, 'BootstrapReady');
  return bootstrap?.dataSecretName != null;
}

/**
 * P-7: CAPM3's CloudProviderEnabled(): `noCloudProvider` explicitly false, or `cloudProviderEnabled`
 * true. Both unset is false here; the cluster controller writes the W-2 defaults.
 */
export function isCloudProviderEnabled(metal3Cluster: Readonly<Metal3Cluster>): boolean {
  return metal3Cluster.spec?.noCloudProvider === false || metal3Cluster.spec?.cloudProviderEnabled === true;
}
