// Which objects belong together (research DR-1, E-30, and the `templateReference` rules of CAPM3's
// Metal3DataTemplate design). Pure functions of the objects; the informers' indexes (mappers.ts) use
// the same keys.
//
// - A claim names its template by `spec.template.name` in its own namespace (W-9: a foreign
//   namespace is refused; CAPM3's controller silently ignores such a claim).
// - A Metal3Data is linked to a template when (1) its `spec.template.name` is the template's name,
//   (2) it carries the same non-empty `spec.templateReference` as the template, or (3) the template's
//   `spec.templateReference` is the name of the Metal3Data's template (an older template the new one
//   adopts). Linked Metal3Data share one index space: a new template that adopts an old one does not
//   hand out the indexes (and so the hostnames and addresses derived from them) still in use by the
//   old one's machines. CAPM3 v1.12.7 reads none of these fields (DR-1) and links by name only.
// - A Metal3Data belongs to a claim when its `spec.claim.name` is the claim's and its claim owner
//   reference carries the claim's uid (so a claim deleted and recreated under the same name does not
//   adopt its predecessor's data); data without such a reference falls back to the template name.
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getOwnerByKind } from '@metal3-ts/shared/meta/owner-references';
import { foreignReferences } from '@metal3-ts/shared/meta/references';
import { INFRASTRUCTURE_GROUP } from './names.ts';

export type TemplateRef =
  | { readonly kind: 'Valid'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'Invalid'; readonly message: string };

/** The template a claim claims from, or why its reference cannot be used (W-9 messages). */
export function templateRefOf(claim: Readonly<Metal3DataClaim>): TemplateRef {
  const namespace = claim.metadata.namespace ?? '';
  const ref = claim.spec?.template;
  const name = ref?.name ?? '';
  if (name === '') return { kind: 'Invalid', message: 'spec.template.name: must be set' };
  const [foreign] = foreignReferences(claim, ['spec.template']);
  if (foreign) {
    return {
      kind: 'Invalid',
      message:
        `${foreign.field}: Invalid value: "${foreign.namespace}": must be empty or match the Metal3DataClaim namespace; cross-namespace template references are not allowed`,
    };
  }
  return { kind: 'Valid', namespace, name };
}

/** `<namespace>/<name>`: the key of a template in the claim and data indexes. */
export function templateKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The index keys under which a template's linked Metal3Data are filed (see LINKED_DATA_INDEX). */
export function linkKeysOfTemplate(template: Readonly<Metal3DataTemplate>): { byTemplateName: string[]; byTemplateReference: string[] } {
  const namespace = template.metadata.namespace ?? '';
  const name = template.metadata.name ?? '';
  const reference = template.spec?.templateReference ?? '';
  return {
    byTemplateName: reference && reference !== name ? [templateKey(namespace, name), templateKey(namespace, reference)] : [templateKey(namespace, name)],
    byTemplateReference: reference ? [templateKey(namespace, reference)] : [],
  };
}

/** Rules (1)–(3) above, for one Metal3Data and one template of the same namespace. */
export function isLinkedToTemplate(data: Readonly<Metal3Data>, template: Readonly<Metal3DataTemplate>): boolean {
  if ((data.metadata.namespace ?? '') !== (template.metadata.namespace ?? '')) return false;
  const dataTemplate = data.spec?.template?.name ?? '';
  const reference = template.spec?.templateReference ?? '';
  if (dataTemplate !== '' && dataTemplate === template.metadata.name) return true;
  if (reference === '') return false;
  return data.spec?.templateReference === reference || dataTemplate === reference;
}

/** The claim's owner reference on a Metal3Data (DT-13 sets it), if any. */
function claimOwnerOf(data: Readonly<Metal3Data>) {
  return getOwnerByKind(data, INFRASTRUCTURE_GROUP, 'Metal3DataClaim');
}

/** Whether `data` was made for `claim` (this incarnation of it). */
export function belongsToClaim(data: Readonly<Metal3Data>, claim: Readonly<Metal3DataClaim>): boolean {
  const namespace = claim.metadata.namespace ?? '';
  if ((data.metadata.namespace ?? '') !== namespace) return false;
  const ref = data.spec?.claim;
  if ((ref?.name ?? '') !== claim.metadata.name) return false;
  if (foreignReferences(data, ['spec.claim']).length > 0) return false;
  const owner = claimOwnerOf(data);
  if (owner) return owner.uid === claim.metadata.uid;
  return (data.spec?.template?.name ?? '') === (claim.spec?.template?.name ?? '');
}

/** The Metal3Machine owner of a claim (DT-11: kind Metal3Machine, group infrastructure.cluster.x-k8s.io). */
export function machineOwnerOf(claim: Readonly<Metal3DataClaim>) {
  return getOwnerByKind(claim, INFRASTRUCTURE_GROUP, 'Metal3Machine');
}
