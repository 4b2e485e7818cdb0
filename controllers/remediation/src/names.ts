// The exact strings CAPM3's Metal3Remediation controller writes and reads (research R-*, RS-*, §0.1),
// defined once for this controller.

/** On the Metal3Remediation while a power cycle is in flight (RS-12.1). */
export const REMEDIATION_FINALIZER = 'metal3remediation.infrastructure.cluster.x-k8s.io';
/** BMO keeps a host powered off while any `reboot.metal3.io/*` annotation is on it (R-13). */
export const rebootAnnotation = (remediationUid: string): string => `reboot.metal3.io/metal3-remediation-${remediationUid}`;
export const REBOOT_ANNOTATION_VALUE = '{"mode":"hard","force":false}';
/** On the host once remediation gives up (v1.12.7 key, read by host selection H-6). */
export { UNHEALTHY_ANNOTATION } from '@metal3-ts/baremetal/names';
export const UNHEALTHY_VALUE = 'capm3/UnhealthyNode';
/** The M3M's host, `<namespace>/<name>`. */
export const HOST_ANNOTATION = 'metal3.io/BareMetalHost';
/** Node backups on the Metal3Remediation (RS-14). */
export const ANNOTATIONS_BACKUP = 'remediation.metal3.io/node-annotations-backup';
export const LABELS_BACKUP = 'remediation.metal3.io/node-labels-backup';

/** status.phase values (R-17). */
export const PHASE_RUNNING = 'Running';
export const PHASE_WAITING = 'Waiting';
export const PHASE_DELETING = 'Deleting machine';
export const PHASE_FAILED = 'Failed';

export const REBOOT_STRATEGY = 'Reboot';
/** v1.13.2 falls back to 600 s when no timeout is set (v1.12.7 crashed, E-22). */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** The Machine condition MachineSet/KCP act on (RS-15, S-1). */
export const OWNER_REMEDIATED = 'OwnerRemediated';
export const WAITING_FOR_REMEDIATION = 'WaitingForRemediation';
export const WAITING_FOR_REMEDIATION_MESSAGE = 'Waiting for remediation';

export const CONTROLLER_NAME = 'metal3remediation';
