// Issue 21: every reference of a Metal3Machine is read in its own namespace. The Secrets of
// spec.userData/metaData/networkData, the spec.dataTemplate, and the copies the controller keeps in
// status (userData, metaData, networkData, renderedData) may leave the namespace empty or repeat the
// machine's own; any other namespace is refused before anything is claimed or written, whatever
// admission let through (the policy may be missing, or the object older than it). Pure.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

type Ref = { readonly namespace?: string | undefined } | undefined;

/** The references that name another namespace: field path and the namespace named, in a fixed order. */
export function foreignReferences(m3m: Readonly<Metal3Machine>): { readonly field: string; readonly namespace: string }[] {
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
  return fields.flatMap(([field, ref]) => (ref?.namespace && ref.namespace !== own ? [{ field: `${field}.namespace`, namespace: ref.namespace }] : []));
}

/** The terminal message for `foreignReferences`' answer (empty when there is nothing to say). */
export function foreignReferencesMessage(m3m: Readonly<Metal3Machine>): string {
  const foreign = foreignReferences(m3m);
  if (foreign.length === 0) return '';
  const fields = foreign.map((f) => `${f.field} ("${f.namespace}")`).join(', ');
  return `${fields}: must be empty or the Metal3Machine namespace "${m3m.metadata.namespace ?? ''}"; cross-namespace references are not allowed`;
}
