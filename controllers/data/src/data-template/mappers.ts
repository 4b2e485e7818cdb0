// Which Metal3DataTemplate an event of another kind concerns (research DT-2, and beyond upstream the
// Cluster watch of E-43). Claims and Metal3Data only matter to a template being deleted: they are
// what its deletion waits for (DT-7); the allocation side reacts to them otherwise.
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IndexFn, ObjectKey, Store } from '@metal3-ts/shared/cache/types';
import type { MapFn } from '@metal3-ts/shared/controller/handlers';
import { foreignReferences } from '@metal3-ts/shared/meta/references';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { templateKey } from '../decisions/association.ts';

/** Metal3DataTemplates by `<namespace>/<spec.clusterName>`. */
export const TEMPLATE_BY_CLUSTER_INDEX = 'metal3datatemplate:by-cluster';
/** Metal3DataClaims by `<namespace>/<template name>` (DT-2's same-namespace rule). */
export const CLAIM_BY_TEMPLATE_INDEX = 'metal3datatemplate:claim-by-template';

export const templateByCluster: IndexFn<Metal3DataTemplate> = (template) =>
  template.spec?.clusterName ? [`${template.metadata.namespace ?? ''}/${template.spec.clusterName}`] : [];

/** DT-2: a claim names its template by name; a template namespace other than the claim's names none. */
export function claimTemplateKey(claim: Readonly<Metal3DataClaim>): ObjectKey | undefined {
  const ref = claim.spec?.template;
  const namespace = claim.metadata.namespace ?? '';
  if (!ref?.name || foreignReferences(claim, ['spec.template']).length > 0) return undefined;
  return { namespace, name: ref.name };
}

export const claimByTemplate: IndexFn<Metal3DataClaim> = (claim) => {
  const key = claimTemplateKey(claim);
  return key ? [`${key.namespace}/${key.name}`] : [];
};

function ifDeleting(templates: Store<Metal3DataTemplate>, key: ObjectKey | undefined): Request[] {
  const template = key ? templates.get(key) : undefined;
  return template?.metadata.deletionTimestamp && key ? [{ namespace: key.namespace ?? '', name: key.name }] : [];
}

/** DT-2, DT-7: a claim wakes its template while the template is being deleted. */
export function claimToDeletingTemplate(templates: Store<Metal3DataTemplate>): MapFn<Metal3DataClaim> {
  return (claim) => ifDeleting(templates, claimTemplateKey(claim));
}

/** DT-7: a Metal3Data wakes its template while the template is being deleted. */
export function dataToDeletingTemplate(templates: Store<Metal3DataTemplate>): MapFn<Metal3Data> {
  return (data) => ifDeleting(templates, templateKey(data));
}

/** E-43: a Cluster that appears (or is unpaused) wakes the templates naming it. */
export function clusterToTemplates(templates: Store<Metal3DataTemplate>): MapFn<Cluster> {
  return (cluster) =>
    templates
      .byIndex(TEMPLATE_BY_CLUSTER_INDEX, `${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`)
      .map((t: Readonly<KubeObject>) => ({ namespace: t.metadata.namespace ?? '', name: t.metadata.name ?? '' }));
}
