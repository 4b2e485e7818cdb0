// Which events reach the Metal3Cluster controller (research C-1, C-2, C-3, §0.6).
//
// Changed from upstream (docs/compatibility.md): pausing is an event too. Upstream drops every event
// of an object carrying the pause annotation and every Cluster update but un-pausing, so the Paused
// condition only turned True at some later, unrelated reconcile. Here the update that pauses (the
// annotation appearing, or Cluster spec.paused turning true) passes, and the reconcile it triggers
// writes nothing but the Paused condition.
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import {
  and,
  clusterUnpaused,
  hasWatchFilterLabel,
  or,
  pausingUpdate,
  type Predicate,
  resourceNotExternallyManaged,
  resourceNotPaused,
} from '@metal3-ts/shared/controller/predicates';
import { deepEqual } from '@metal3-ts/shared/patch/diff';

/**
 * Every source (C-3, §0.6): not externally managed; the watch-filter label when `--watch-filter` is
 * set; not paused by annotation, except for the update that pauses.
 */
export function metal3ClusterEventFilter(watchFilter: string): Predicate {
  return and(resourceNotExternallyManaged, hasWatchFilterLabel(watchFilter), or(resourceNotPaused, pausingUpdate));
}

function withoutStatus(obj: Readonly<KubeObject>): unknown {
  const { status: _status, metadata, ...rest } = obj as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/**
 * C-1: the primary watch ignores updates that change only the status (our own status writes among
 * them); metadata and spec changes pass.
 */
export const metal3ClusterChanged: Predicate<Metal3Cluster> = {
  update: (old, obj) => !deepEqual(withoutStatus(old), withoutStatus(obj)),
};

/** An update that sets Cluster spec.paused. */
const clusterPausing: Predicate<Cluster> = {
  create: () => false,
  update: (old, cluster) => old.spec?.paused !== true && cluster.spec?.paused === true,
  delete: () => false,
};

/** C-2: Cluster API's ClusterUnpaused (creates of running Clusters, un-pausing), plus pausing. */
export const clusterPauseTransitions: Predicate<Cluster> = or(clusterUnpaused, clusterPausing);

/** Machines and Metal3Machines only matter when they go away (a deletion may be waiting on them). */
export const onlyDeletes: Predicate = { create: () => false, update: () => false };
