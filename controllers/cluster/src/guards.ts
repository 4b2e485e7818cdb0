// What a reconcile of one Metal3Cluster may do, decided from the object and its owner Cluster alone
// (research C-3, C-8…C-12, E-13). Order: externally managed, paused, deletion, owner.
//
// Changed from upstream (docs/compatibility.md):
// - deletion no longer needs an owner: a Metal3Cluster whose ownerReference was never set or points
//   at a Cluster that is gone can still be deleted (E-13);
// - an owner Cluster that cannot be found is a wait (requeue) with a condition, not an error retried
//   with backoff, and does not set the terminal failureReason/failureMessage (C-8).
import type { OwnerReference } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isExternallyManaged } from '@metal3-ts/shared/meta/externally-managed';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, METAL3_CLUSTER_FINALIZER } from './names.ts';

export type Guard =
  /** C-3: another controller manages this infrastructure; touch nothing. */
  | { readonly kind: 'ExternallyManaged' }
  /** Being deleted without our finalizer: nothing of ours to clean up. */
  | { readonly kind: 'NotOurs' }
  /** C-10: only the Paused condition is written. */
  | { readonly kind: 'Paused' }
  /** C-11: wait for the cluster's machines, then remove the finalizer. */
  | { readonly kind: 'Delete'; readonly clusterName: string | undefined }
  /** C-9: Cluster API has not adopted the object yet. */
  | { readonly kind: 'WaitForOwnerRef' }
  /** C-8: the ownerReference names a Cluster that does not exist (yet, or any more). */
  | { readonly kind: 'OwnerClusterMissing'; readonly clusterName: string }
  | { readonly kind: 'Reconcile'; readonly cluster: Readonly<Cluster> };

/** The first ownerReference to a Cluster API Cluster (any version), as upstream looks it up. */
export function ownerClusterRef(m3c: Readonly<Metal3Cluster>): OwnerReference | undefined {
  return getOwnerByKind(m3c, CLUSTER_API_GROUP, 'Cluster');
}

/**
 * The name of the Cluster the object belongs to: its owner's, else its cluster-name label. Deletion
 * uses it to find the machines to wait for.
 */
export function clusterNameOf(m3c: Readonly<Metal3Cluster>): string | undefined {
  return ownerClusterRef(m3c)?.name || m3c.metadata.labels?.[CLUSTER_NAME_LABEL] || undefined;
}

/** `cluster` is the owner Cluster as found (undefined when there is no owner or it does not exist). */
export function guard(m3c: Readonly<Metal3Cluster>, cluster: Readonly<Cluster> | undefined): Guard {
  if (isExternallyManaged(m3c)) return { kind: 'ExternallyManaged' };
  if (m3c.metadata.deletionTimestamp && !hasFinalizer(m3c, METAL3_CLUSTER_FINALIZER)) return { kind: 'NotOurs' };
  if (isPaused(cluster, m3c)) return { kind: 'Paused' };
  if (m3c.metadata.deletionTimestamp) return { kind: 'Delete', clusterName: clusterNameOf(m3c) };
  const owner = ownerClusterRef(m3c);
  if (!owner) return { kind: 'WaitForOwnerRef' };
  if (!cluster) return { kind: 'OwnerClusterMissing', clusterName: owner.name };
  return { kind: 'Reconcile', cluster };
}
