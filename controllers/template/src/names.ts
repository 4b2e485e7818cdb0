// The exact strings this controller reads and writes (research 0.2). Cluster API stamps the two
// annotations on every object it clones from a template; existing clusters carry them, so they are
// part of the wire contract.

export { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION } from '@metal3-ts/shared/meta/cloned-from';

/** The value of the groupkind annotation on Metal3Machines cloned from a Metal3MachineTemplate. */
export const METAL3_MACHINE_TEMPLATE_GROUPKIND = 'Metal3MachineTemplate.infrastructure.cluster.x-k8s.io';

/** The controller's name: metric labels and log fields, as controller-runtime names it after the kind. */
export const CONTROLLER_NAME = 'metal3machinetemplate';

/** Where the template keeps the mode it propagates, as a field path for messages. */
export const CLEANING_MODE_FIELD = 'spec.template.spec.automatedCleaningMode';

/** Event reasons. CAPM3 records no events for templates; these are ours (docs/compatibility.md). */
export const REASONS = {
  /** Normal, on a Metal3Machine whose automatedCleaningMode the template changed. */
  updated: 'AutomatedCleaningModeUpdated',
  /** Warning, on a template whose automatedCleaningMode is not a supported value. */
  invalid: 'InvalidAutomatedCleaningMode',
  /** Warning, on a template when the apiserver rejected the new value for one of its machines. */
  rejected: 'AutomatedCleaningModeRejected',
  /** Warning, on a template with a reference into another namespace (issue 21; its machines refuse it). */
  foreignReference: 'InvalidReference',
} as const;
