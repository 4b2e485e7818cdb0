// The strings the simulated BMO reads and writes. The first group belongs to the real
// baremetal-operator (v0.12.6) and is part of the wire contract; the `sim.metal3-ts.dev/*` group is
// the simulator's own test hooks, which no real component understands.

/** BMO's finalizer on every host it manages; removed when the host has been deleted from Ironic. */
export const BMO_FINALIZER = 'baremetalhost.metal3.io';

/** While present (any value) BMO does nothing at all to the host, not even on deletion. */
export const PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';

/** A JSON copy of the status, restored by BMO onto a host that has none (clusterctl move). */
export const STATUS_ANNOTATION = 'baremetalhost.metal3.io/status';

/** Detaches the host from the provisioner: BMO stops managing it, `operationalStatus: detached`. */
export const DETACHED_ANNOTATION = 'baremetalhost.metal3.io/detached';

/** `inspect.metal3.io: disabled` skips inspection (the host then has no `status.hardware`). */
export const INSPECT_ANNOTATION = 'inspect.metal3.io';

/** `reboot.metal3.io` and `reboot.metal3.io/<suffix>`: keep a provisioned host powered off while present. */
export const REBOOT_ANNOTATION_PREFIX = 'reboot.metal3.io';

/**
 * Simulator hook: JSON overrides deep-merged (objects merged, arrays replaced) over the hardware the
 * simulator generates from the host's name, e.g. `{"hostname":"node-a","ramMebibytes":4096}`. Read
 * when inspection completes; an unparsable value fails the inspection (`inspection error`).
 */
export const HARDWARE_ANNOTATION = 'sim.metal3-ts.dev/hardware';

/**
 * Simulator hook: a comma-separated list of operations that fail while the annotation is present:
 * `registration`, `inspection`, `preparation`, `provisioning`, `deprovisioning`, `power`. Removing the
 * annotation lets the host recover the way the real BMO recovers from that error.
 */
export const FAIL_ANNOTATION = 'sim.metal3-ts.dev/fail';

/** `status.errorType` values (the CRD's enum). */
export const ErrorType = {
  ProvisionedRegistration: 'provisioned registration error',
  Registration: 'registration error',
  Inspection: 'inspection error',
  Preparation: 'preparation error',
  Provisioning: 'provisioning error',
  PowerManagement: 'power management error',
  Servicing: 'servicing error',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/** `status.operationalStatus` values (the CRD's enum). */
export const OperationalStatus = {
  None: '',
  OK: 'OK',
  Discovered: 'discovered',
  Error: 'error',
  Delayed: 'delayed',
  Detached: 'detached',
  Servicing: 'servicing',
} as const;
export type OperationalStatusName = (typeof OperationalStatus)[keyof typeof OperationalStatus];
