// Issue 21: every reference of a Metal3Machine is read in its own namespace. The Secrets of
// spec.userData/metaData/networkData, the spec.dataTemplate, and the copies the controller keeps in
// status (userData, metaData, networkData, renderedData) may leave the namespace empty or repeat the
// machine's own; any other namespace is refused before anything is claimed or written, whatever
// admission let through (the policy may be missing, or the object older than it). Pure.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

type Ref = { readonly namespace?: string | undefined } | undefined;

/** Field paths of the references that name another namespace, in a fixed order. */
export function foreignReferences(m3m: Readonly<Metal3Machine>): string[] {
  const own = m3m.metadata.namespace ?? '';
  const { spec, status } = m3m;
  const fields: [string, Ref][] = [
    ['spec.userData', spec?.userData],
    ['spec.metaData', spec?.metaData],
    ['spec.networkData', spec?.networkData],
    ['spec.dataTemplate', spec?.dataTemplate],
    ['status.userData', status?.userData],
    ['status.metaData', status?.metaData],
    ['status.networkData', status?.networkData],
    ['status.renderedData', status?.renderedData],
  ];
  return fields.filter(([, ref]) => !!ref?.namespace && ref.namespace !== own).map(([field]) => `${field}.namespace`);
}

/** The terminal message for `foreignReferences`' answer (empty when there is nothing to say). */
export function foreignReferencesMessage(m3m: Readonly<Metal3Machine>): string {
  const fields = foreignReferences(m3m);
  if (fields.length === 0) return '';
  return `${fields.join(', ')}: must be empty or the Metal3Machine namespace "${m3m.metadata.namespace ?? ''}"; cross-namespace references are not allowed`;
}
