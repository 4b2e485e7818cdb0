// Issue 21: every reference of a Metal3Machine is read in its own namespace. The Secrets of
// spec.userData/metaData/networkData, the spec.dataTemplate, and the copies the controller keeps in
// status (userData, metaData, networkData, renderedData) may leave the namespace empty or repeat the
// machine's own; any other namespace is refused before anything is claimed or written, whatever
// admission let through (the policy may be missing, or the object older than it). Which fields are
// references is the shared table's business (REFERENCE_FIELDS); this module only words the refusal. Pure.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';

/** The terminal message naming every foreign reference of the machine (empty when there is none). */
export function foreignReferencesMessage(m3m: Readonly<Metal3Machine>): string {
  const foreign = foreignReferences(m3m, REFERENCE_FIELDS.Metal3Machine);
  if (foreign.length === 0) return '';
  const fields = foreign.map((f) => `${f.field} ("${f.namespace}")`).join(', ');
  return `${fields}: must be empty or the Metal3Machine namespace "${m3m.metadata.namespace ?? ''}"; cross-namespace references are not allowed`;
}
