// Strings the Metal3 IP address manager (v1.12) writes; other components (CAPM3) match them exactly.

/** On an IPPool while it may still have allocations. */
export const IPPOOL_FINALIZER = 'ippool.ipam.metal3.io';
/** On a Metal3 IPClaim while it holds an address. */
export const IPCLAIM_FINALIZER = 'ipclaim.ipam.metal3.io';
/** On a Metal3 IPAddress; removed just before the manager deletes it. */
export const IPADDRESS_FINALIZER = 'ipaddress.ipam.metal3.io';
/** On a Cluster API IPAddressClaim served from a Metal3 IPPool. */
export const CAPI_IPADDRESSCLAIM_FINALIZER = 'ipam.metal3.io/ipaddressclaim';
/** On a Cluster API IPAddress created from a Metal3 IPPool. */
export const CAPI_IPADDRESS_FINALIZER = 'ipam.metal3.io/ipaddress';

export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const PROVIDER_NAME_LABEL = 'cluster.x-k8s.io/provider';
export const PROVIDER_NAME = 'ipam-metal3';

export const METAL3_IPAM_GROUP = 'ipam.metal3.io';
export const IPPOOL_KIND = 'IPPool';

/** Cluster API IPAddressClaim `Ready` condition reasons (v1beta1 IPAM contract). */
export const ALLOCATION_FAILED_REASON = 'AllocationFailed';
export const POOL_EXHAUSTED_REASON = 'PoolExhausted';
