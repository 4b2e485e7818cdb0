// Cluster API's label, annotation and API group strings that more than one controller (or the
// harness) reads, defined once here. They are Cluster API's wire contract: existing clusters carry
// them, so they are copied exactly and never "tidied". Metal3's own strings live with the code that
// owns them (the BareMetalHost driver's in host/names.ts, each controller's in its names.ts).

/** Pauses reconciliation of the object carrying it (any value; presence is what counts). */
export const CAPI_PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
/** Selects the objects a controller started with `--watch-filter=<value>` reconciles. */
export const WATCH_FILTER_LABEL = 'cluster.x-k8s.io/watch-filter';
/** Marks infrastructure managed by something other than this provider (any value). */
export const MANAGED_BY_ANNOTATION = 'cluster.x-k8s.io/managed-by';
/** Names the Cluster an object belongs to. */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** The API group of Cluster API core (Cluster, Machine, MachineSet, MachineDeployment). */
export const CLUSTER_API_GROUP = 'cluster.x-k8s.io';
/** The API group of infrastructure providers, Metal3's kinds among them. */
export const INFRASTRUCTURE_GROUP = 'infrastructure.cluster.x-k8s.io';
