// The strings users of CAPM3 see and depend on for Metal3Machine (research §0.1–§0.3, §1.2), copied
// exactly, misspellings and odd spellings included ("WaitingforMetal3Cluster",
// "PauseAnnotationSetFailedReason").

/** M-18: on every Metal3Machine we work for, and on the Metal3DataClaim it creates (DC-1). */
export const METAL3_MACHINE_FINALIZER = 'metal3machine.infrastructure.cluster.x-k8s.io';

/** M-41: the host annotation, defined (and parsed) once for both controllers in the BareMetalHost driver. */
export { HOST_ANNOTATION } from '@metal3-ts/baremetal/host-annotation';

/** Cluster API's strings, defined once in the harness. */
export { CLUSTER_API_GROUP, CLUSTER_NAME_LABEL, INFRASTRUCTURE_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';
/**
 * M-26 (changed): `<host namespace>/<host name>/<Secret name>` of the BMC Secret this machine has
 * labelled. Ours, not CAPM3's: no Secret is cached, so this marker is how a reconcile knows the label
 * landed without reading the Secret; without it (a refused write, or a machine from before) it labels.
 */
export const BMC_SECRET_LABELLED_ANNOTATION = 'metal3machine.infrastructure.cluster.x-k8s.io/bmc-secret-labelled';
export const CLONED_FROM_NAME_ANNOTATION = 'cluster.x-k8s.io/cloned-from-name';
/** P-8: the workload Node label carrying the BareMetalHost's UID (set by the kubelet, read here). */
export const NODE_UUID_LABEL = 'metal3.io/uuid';
/** P-12: the hostname fallback matches Nodes by this label. */
export const NODE_HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** Controller name in metrics and logs. */
export const CONTROLLER_NAME = 'metal3machine';

/** v1beta1 condition types (§0.3). */
export const ASSOCIATE_BMH = 'AssociateBMH';
export const METAL3_DATA_READY = 'Metal3DataReady';
export const KUBERNETES_NODE_READY = 'KubernetesNodeReady';
/** v1beta2 condition types (§0.3). */
export const ASSOCIATE_BARE_METAL_HOST = 'AssociateBareMetalHost';
export const ASSOCIATE_METADATA = 'AssociateMetal3MachineMetaData';
export const READY = 'Ready';
export const PAUSED = 'Paused';

/** v1beta1 reasons (§0.3). */
export const V1Beta1Reason = {
  WaitingForM3MachineOwnerRef: 'WaitingForM3MachineOwnerRef',
  WaitingForClusterInfrastructure: 'WaitingForClusterInfrastructure',
  WaitingforMetal3Cluster: 'WaitingforMetal3Cluster',
  PauseAnnotationSetFailed: 'PauseAnnotationSetFailedReason',
  PauseAnnotationRemoveFailed: 'PauseAnnotationRemoveFailed',
  Metal3MachinePaused: 'Metal3MachinePaused',
  WaitingForBootstrapReady: 'WaitingForBootstrapReady',
  AssociateBMHFailed: 'AssociateBMHFailed',
  WaitingForMetal3Data: 'WaitingForMetal3Data',
  AssociateM3MetaDataFailed: 'AssociateM3MetaDataFailed',
  Deleting: 'Deleting',
  DisassociateM3MetaDataFailed: 'DisassociateM3MetaDataFailed',
  DeletionFailed: 'DeletionFailed',
} as const;

/** v1beta2 reasons (§0.3). */
export const V1Beta2Reason = {
  WaitingForMetal3MachineOwnerRef: 'WaitingForMetal3MachineOwnerRef',
  WaitingForClusterInfrastructureReady: 'WaitingForClusterInfrastructureReady',
  WaitingforMetal3Cluster: 'WaitingforMetal3Cluster',
  WaitingForBootstrapData: 'WaitingForBootstrapData',
  AssociateBareMetalHostFailed: 'AssociateBareMetalHostFailed',
  AssociateBareMetalHostSuccess: 'AssociateBareMetalHostSuccess',
  AssociateMetaDataSuccess: 'AssociateMetal3MachineMetaDataSuccess',
  AssociateMetaDataFailed: 'AssociateMetal3MachineMetaDataFailed',
  Deleting: 'Deleting',
  DisassociateM3MetaDataFailed: 'DisassociateM3MetaDataFailed',
  DeletionFailed: 'DeletionFailed',
  WaitingForMetal3Data: 'WaitingForMetal3Data',
  Metal3DataSecretsReady: 'Metal3DataSecretsReady',
  SecretsSetExternally: 'SecretsSetExternally',
  Paused: 'Paused',
  NotPaused: 'NotPaused',
  PauseAnnotationSetFailed: 'BareMetalHostPauseAnnotationSetFailed',
  PauseAnnotationRemoveFailed: 'BareMetalHostPauseAnnotationRemoveFailed',
} as const;

/** M-42: inputs of the two Ready summaries. */
export const V1BETA1_READY_INPUTS = [ASSOCIATE_BMH, METAL3_DATA_READY, KUBERNETES_NODE_READY] as const;
export const V1BETA2_READY_INPUTS = [ASSOCIATE_BARE_METAL_HOST, ASSOCIATE_METADATA, METAL3_DATA_READY] as const;
/** M-42: the conditions the final patch claims (ours win on a conflict). */
export const OWNED_CONDITIONS = [
  READY,
  ASSOCIATE_BMH,
  METAL3_DATA_READY,
  KUBERNETES_NODE_READY,
  ASSOCIATE_BARE_METAL_HOST,
  ASSOCIATE_METADATA,
  PAUSED,
] as const;

/** Cluster API machine status error tokens (§0.3). */
export const FailureReason = {
  CreateError: 'CreateError',
  UpdateError: 'UpdateError',
  DeleteError: 'DeleteError',
  InvalidConfiguration: 'InvalidConfiguration',
} as const;

/** §0.4: upstream's poll; here only a safety net behind the watches. */
export const REQUEUE_AFTER_MS = 30_000;
