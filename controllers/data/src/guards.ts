// What a reconcile of one Metal3Data may do, decided from the object and its Cluster alone (research
// D-6…D-8, E-42). Order: not ours, cluster, pause, deletion.
//
// Changed from upstream (docs/compatibility.md):
// - E-42: a Metal3Data without the `cluster.x-k8s.io/cluster-name` label says so in
//   `status.errorMessage` instead of being skipped in silence; adding the label resumes it;
// - D-6: a missing or paused Cluster is waited out without polling: the Cluster's creation or
//   unpausing, or the label or annotation changing on the Metal3Data, wakes it (mappers.ts).
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { CLUSTER_NAME_LABEL, METAL3_DATA_FINALIZER } from './names.ts';

export type DataGuard =
  /** Deleting without our finalizer: nothing of ours is left to release. */
  | { readonly kind: 'NotOurs' }
  /** E-42: no cluster-name label; only the status says so. */
  | { readonly kind: 'MissingClusterLabel' }
  /** D-6: the Cluster does not exist (yet). */
  | { readonly kind: 'WaitForCluster'; readonly clusterName: string }
  /** D-6: the Cluster or the Metal3Data is paused. */
  | { readonly kind: 'Paused' }
  /** D-7. */
  | { readonly kind: 'Delete' }
  /** D-8. */
  | { readonly kind: 'Reconcile' };

export const clusterNameOf = (data: Readonly<Metal3Data>): string | undefined => data.metadata.labels?.[CLUSTER_NAME_LABEL] || undefined;

/** `cluster` is the Cluster the label names, as found (undefined when absent). */
export function guard(data: Readonly<Metal3Data>, cluster: Readonly<Cluster> | undefined): DataGuard {
  const deleting = data.metadata.deletionTimestamp !== undefined;
  if (deleting && !hasFinalizer(data, METAL3_DATA_FINALIZER)) return { kind: 'NotOurs' };
  const clusterName = clusterNameOf(data);
  if (!deleting) {
    if (!clusterName) return { kind: 'MissingClusterLabel' };
    if (!cluster) return { kind: 'WaitForCluster', clusterName };
  }
  if (isPaused(cluster, data)) return { kind: 'Paused' };
  return deleting ? { kind: 'Delete' } : { kind: 'Reconcile' };
}
