// The strings users of CAPM3 see and depend on (research capm3-behavior.md §0.1–0.3 for
// Metal3Cluster): the finalizer, the condition types and reasons of both dialects, the labels read.
// They are copied exactly, misspellings included.

/** Research §0.1: put on every adopted Metal3Cluster, removed once its machines are gone. */
export const METAL3_CLUSTER_FINALIZER = 'metal3cluster.infrastructure.cluster.x-k8s.io';

/** The condition type of both dialects that says whether the bare-metal infrastructure is usable. */
export const BAREMETAL_INFRASTRUCTURE_READY = 'BaremetalInfrastructureReady';
export const READY = 'Ready';
/** v1beta2 only (Cluster API's EnsurePausedCondition, C-10). */
export const PAUSED = 'Paused';

/** v1beta1 reasons (§0.3), always with severity Error. */
export const V1Beta1Reason = {
  ControlPlaneEndpointFailed: 'ControlPlaneEndpointFailed',
  /** Upstream's spelling. */
  InternalFailureOccured: 'InternalFailureOccured',
} as const;

/** v1beta2 reasons (§0.3). */
export const V1Beta2Reason = {
  Ready: 'Ready',
  ControlPlaneEndpointFailed: 'ControlPlaneEndpointFailed',
  FailedToGetOwnerCluster: 'FailedToGetOwnerCluster',
  Deleting: 'Deleting',
  Paused: 'Paused',
  NotPaused: 'NotPaused',
  /** Cluster API's v1beta2 InternalErrorReason: a write the apiserver refused (not upstream CAPM3). */
  InternalError: 'InternalError',
} as const;

/** The conditions the final patch claims (C-17): on a conflict with another writer, ours win. */
export const OWNED_CONDITIONS = [READY, BAREMETAL_INFRASTRUCTURE_READY, PAUSED] as const;
/** The inputs of both Ready summaries (C-17). */
export const READY_SUMMARY_INPUTS = [BAREMETAL_INFRASTRUCTURE_READY] as const;

/** Cluster API's strings, defined once in the harness. */
export { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';

/** Research §0.4: the wait used everywhere upstream. */
export const REQUEUE_AFTER_MS = 30_000;

/** What `kubectl get` shows for a Kubernetes API server port nobody chose (W-2). */
export const DEFAULT_API_SERVER_PORT = 6443;
