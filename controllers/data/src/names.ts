// The strings users of CAPM3 see and depend on for Metal3DataTemplate and Metal3Data (research §0.1,
// §0.2, D-9…D-18), copied exactly. Note the finalizer naming trap of §0.1: the "data" finalizer goes
// on the Metal3Data and on the IP claims it creates; the "dataclaim" finalizer, put on Metal3Data
// objects by the allocation side, is not ours to add or remove.

/** On Metal3DataTemplates (DT-8), removed once no claim or Metal3Data needs the template (DT-7). */
export const METAL3_DATA_TEMPLATE_FINALIZER = 'metal3datatemplate.infrastructure.cluster.x-k8s.io';
/** On Metal3Data (D-8) and on the IPClaims / IPAddressClaims a Metal3Data creates (D-16, D-18). */
export const METAL3_DATA_FINALIZER = 'metal3data.infrastructure.cluster.x-k8s.io';
/** Put on Metal3Data by the allocation side (DT-13); we never touch it. */
export const METAL3_DATA_CLAIM_FINALIZER = 'metal3dataclaim.infrastructure.cluster.x-k8s.io';

/** Cluster API's strings, defined once in the harness. */
export { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';
/** M-41: the host annotation, defined (and parsed) once for both controllers in the BareMetalHost driver. */
export { HOST_ANNOTATION } from '@metal3-ts/baremetal/host-annotation';
/** D-17: on preallocated IPClaims, naming the Metal3Data and the pool they serve. */
export const DATA_NAME_LABEL = 'infrastructure.cluster.x-k8s.io/data-name';
export const POOL_NAME_LABEL = 'infrastructure.cluster.x-k8s.io/pool-name';

/** D-12: type and data keys of the rendered Secrets. */
export const RENDERED_SECRET_TYPE = 'infrastructure.cluster.x-k8s.io/secret';
export const META_DATA_KEY = 'metaData';
export const NETWORK_DATA_KEY = 'networkData';
/**
 * Ours (not upstream's): on every Secret this controller renders, so a label-selected watch sees
 * exactly those (a rendered Secret that disappears is rendered again) and no other Secret.
 */
export const RENDERED_SECRET_LABEL = 'metal3data.infrastructure.cluster.x-k8s.io/rendered';

export const METAL3_IPAM_GROUP = 'ipam.metal3.io';
export const METAL3_IPAM_POOL_KIND = 'IPPool';

/** Controller names in metrics and logs (CAPM3's controller names, lower-cased). */
export const DATA_CONTROLLER_NAME = 'metal3data';
export const DATA_TEMPLATE_CONTROLLER_NAME = 'metal3datatemplate';

/** Research §0.4: the wait used everywhere upstream; here a safety net behind the watches. */
export const REQUEUE_AFTER_MS = 30_000;

/** D-9: the Secret names derived from the Metal3Machine when the Metal3Data names none (D-10). */
export const metaDataSecretName = (metal3Machine: string): string => `${metal3Machine}-metadata`;
export const networkDataSecretName = (metal3Machine: string): string => `${metal3Machine}-networkdata`;

/** D-16, D-18: the IP claim of a Metal3Data for one pool (D-17: `<host>-<pool>` with preallocation). */
export const ipClaimName = (owner: string, pool: string): string => `${owner}-${pool}`;
