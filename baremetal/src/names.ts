// The exact label and annotation strings the BareMetalHost driver reads and writes (research 0.2).
// The baremetal-operator (BMO) and CAPM3 define them; existing clusters carry them, so they are part
// of the wire contract and must never be "tidied".

/** BMO stops reconciling a host while this annotation is present, whatever its value. */
export const HOST_PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';

/** The pause annotation's value when CAPM3 (or we) set it; any other value is a user's pause (M-14, M-15). */
export const CAPM3_PAUSE_VALUE = 'metal3.io/capm3';

/**
 * A JSON copy of the host status without `hardware`, written beside our pause (M-14). BMO restores
 * the status from it when the host object is recreated without status (clusterctl move).
 */
export const STATUS_ANNOTATION = 'baremetalhost.metal3.io/status';

/**
 * Marks a host unhealthy: remediation writes `capm3/UnhealthyNode` under it when it gives up
 * (RS-15 with CAPM3 v1.13's key, AP-31); any value excludes the host from selection (H-6, B2-11).
 */
export const UNHEALTHY_ANNOTATION = 'capm3.metal3.io/unhealthy';

/** The key before CAPM3 v1.13 (AP-31): nothing writes it any more, but it still excludes a host (B2-11). */
export const DEPRECATED_UNHEALTHY_ANNOTATION = 'capi.metal3.io/unhealthy';

/** Reserves a released host for the next machine of one control plane or MachineDeployment (N-3…N-6). */
export const NODE_REUSE_LABEL = 'infrastructure.cluster.x-k8s.io/node-reuse';

/** Host label compared with the consumer's failure domain when picking among candidates (H-12). */
export const FAILURE_DOMAIN_LABEL = 'infrastructure.cluster.x-k8s.io/failure-domain';

/** Cluster API's control-plane machine label: present (any value) on control-plane Machines. */
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';
