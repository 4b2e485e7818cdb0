// The exact strings users of CAPM3 see on claims, Metal3Data and templates (research §0.1, §0.2,
// DT-11…DT-15), and this controller's own names. Note the finalizer naming trap of §0.1: the string
// called "DataClaimFinalizer" goes on the claim *and* on the Metal3Data we create; the Metal3Machine
// finalizer on the claim belongs to the Metal3Machine controller and is never touched here.

/** Ours: on Metal3DataClaims (DT-11) and on the Metal3Data made for them (DT-13). */
export const DATA_CLAIM_FINALIZER = 'metal3dataclaim.infrastructure.cluster.x-k8s.io';
/** The Metal3Machine controller's, on the claim it creates (DC-1). Left alone. */
export const METAL3_MACHINE_FINALIZER = 'metal3machine.infrastructure.cluster.x-k8s.io';

/** Cluster API's strings, defined once in the harness. */
export { INFRASTRUCTURE_GROUP } from '@metal3-ts/shared/meta/cluster-api-names';
export const INFRASTRUCTURE_API_VERSION = 'infrastructure.cluster.x-k8s.io/v1beta1';

/** Controller name in metrics and logs (CAPM3 allocates in its `metal3datatemplate` controller). */
export const CONTROLLER_NAME = 'metal3dataclaim';

/** DT-12: a Metal3Data is named after its template and index. */
export function dataName(template: string, index: number): string {
  return `${template}-${index}`;
}

/** The index in a Metal3Data name made by `dataName(template, …)`, if it is one. */
export function indexFromDataName(template: string, name: string): number | undefined {
  if (!name.startsWith(`${template}-`)) return undefined;
  const suffix = name.slice(template.length + 1);
  return /^(0|[1-9][0-9]{0,14})$/.test(suffix) ? Number(suffix) : undefined;
}

/** Messages CAPM3 writes to `status.errorMessage` of a claim (DT-11, DT-13, DT-15), verbatim. */
export const UPSTREAM_MESSAGES = {
  noMachineOwner: 'Metal3Machine not found in owner references',
  createFailed: 'Failed to create associated Metal3Data object',
  deleteFailed: 'Failed to delete associated Metal3Data object',
} as const;

/** Event reasons. CAPM3 records no events for claims; these are ours (docs/compatibility.md). */
export const REASONS = {
  /** Warning: the claim's spec.template cannot be used (cross-namespace, empty name). */
  invalidTemplateReference: 'InvalidTemplateReference',
  /** Warning: status.renderedData names another namespace (issue 21: never followed). */
  foreignRenderedData: 'InvalidRenderedDataReference',
  /** Warning: any other reference of the shared table names another namespace (issue 21: never followed). */
  foreignReference: 'InvalidReference',
  /** Warning: the referenced Metal3DataTemplate does not exist (yet). */
  templateNotFound: 'Metal3DataTemplateNotFound',
  /** Warning: the claim has no Metal3Machine owner, so its Metal3Data cannot name one. */
  noMachineOwner: 'Metal3MachineOwnerMissing',
  /** Warning: creating or deleting the Metal3Data failed (retried). */
  dataWriteFailed: 'Metal3DataWriteFailed',
} as const;
