// The strings of label sync users see and depend on (research LS-1…LS-4, L-4…L-6), copied exactly,
// and this controller's own names. Cluster API's strings come from the harness (defined once).

/** LS-4: on a Metal3Cluster, the comma-separated label prefixes whose host labels reach the Nodes. */
export const LABEL_SYNC_PREFIXES_ANNOTATION = 'metal3.io/metal3-label-sync-prefixes';
/** LS-2: baremetal-operator's pause annotation on a host (any value, CAPM3's own `metal3.io/capm3` too). */
export const HOST_PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';

export { CAPI_PAUSED_ANNOTATION, CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';

/** Controller name in metrics and logs (CAPM3's `metal3labelsync`). */
export const CONTROLLER_NAME = 'metal3labelsync';

/** The Warning event on a Metal3Cluster whose prefix annotation has an entry that is no label prefix. */
export const INVALID_PREFIX_REASON = 'InvalidLabelSyncPrefix';

/** Informer index names: prefixed, since the all-in-one process shares informers between controllers. */
export const HOSTS_BY_CONSUMER_INDEX = 'labelsync:hostsByConsumer';
export const MACHINES_BY_CLUSTER_INDEX = 'labelsync:machinesByCluster';
