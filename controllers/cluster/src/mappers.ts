// Which Metal3Cluster an event of another kind concerns (research C-2), plus the wake-up for a
// deletion waiting on machines (upstream polls every 30 s; here the last machine's delete event
// ends the wait at once, and the poll stays as a safety net).
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IndexFn, Store } from '@metal3-ts/shared/cache/types';
import type { MapFn } from '@metal3-ts/shared/controller/handlers';
import { isExternallyManaged } from '@metal3-ts/shared/meta/externally-managed';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { clusterNameOf } from './guards.ts';
import { CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from './names.ts';

/** Metal3Cluster index: `<namespace>/<cluster name>` (owner Cluster, else cluster-name label). */
export const METAL3_CLUSTER_BY_CLUSTER_INDEX = 'metal3cluster:by-cluster';
/** Machine and Metal3Machine index: `<namespace>/<cluster-name label>`. */
export const MEMBER_BY_CLUSTER_INDEX = 'metal3cluster:member-by-cluster';

export const metal3ClusterByCluster: IndexFn<Metal3Cluster> = (m3c) => {
  const name = clusterNameOf(m3c);
  return name ? [`${m3c.metadata.namespace ?? ''}/${name}`] : [];
};

export const memberByCluster: IndexFn<KubeObject> = (obj) => {
  const name = obj.metadata.labels?.[CLUSTER_NAME_LABEL];
  return name ? [`${obj.metadata.namespace ?? ''}/${name}`] : [];
};

/**
 * C-2: a Cluster maps to the Metal3Cluster its infrastructureRef names (group
 * infrastructure.cluster.x-k8s.io, kind Metal3Cluster, in the Cluster's namespace), if that object
 * exists and is not externally managed.
 */
export function clusterToMetal3Cluster(metal3Clusters: Store<Metal3Cluster>): MapFn<Cluster> {
  return (cluster) => {
    const ref = cluster.spec?.infrastructureRef;
    const namespace = cluster.metadata.namespace;
    if (!ref?.name || !namespace || ref.kind !== 'Metal3Cluster' || apiGroupOf(ref.apiVersion ?? '') !== INFRASTRUCTURE_GROUP) return [];
    const m3c = metal3Clusters.get({ namespace, name: ref.name });
    if (!m3c || isExternallyManaged(m3c)) return [];
    return [{ namespace, name: ref.name }];
  };
}

/** A Machine or Metal3Machine maps to the Metal3Clusters of its cluster that are being deleted. */
export function memberToDeletingMetal3Clusters(metal3Clusters: Store<Metal3Cluster>): MapFn<KubeObject> {
  return (obj) => {
    const keys = memberByCluster(obj);
    const requests: Request[] = [];
    for (const key of keys) {
      for (const m3c of metal3Clusters.byIndex(METAL3_CLUSTER_BY_CLUSTER_INDEX, key)) {
        if (m3c.metadata.deletionTimestamp) requests.push({ namespace: m3c.metadata.namespace ?? '', name: m3c.metadata.name ?? '' });
      }
    }
    return requests;
  };
}
