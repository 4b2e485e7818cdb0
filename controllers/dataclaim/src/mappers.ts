// The informer indexes this controller reads through, and the watches that bring a claim back
// (research DT-1, DT-2, M-5/M-6 mirrored): a template appearing or un-pausing wakes the claims that
// name it, a Cluster appearing or un-pausing wakes the claims of its templates, and a Metal3Data
// that disappears wakes its claim. Indexes instead of lists: a reconcile touches only its template's
// objects, whatever the namespace holds.
import type { KubeObject } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IndexFn, Store } from '@metal3-ts/shared/cache/types';
import type { MapFn } from '@metal3-ts/shared/controller/handlers';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import { hasPausedAnnotation as isPausedByAnnotation } from '@metal3-ts/shared/meta/paused';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { templateKey, templateRefOf } from './association.ts';
import { DATA_CLAIM_FINALIZER } from './names.ts';

/** Claims by the template they name: `<namespace>/<template>` (valid references only). */
export const CLAIMS_BY_TEMPLATE_INDEX = 'dataclaim.byTemplate';
export const claimsByTemplate: IndexFn<Metal3DataClaim> = (claim) => {
  const ref = templateRefOf(claim);
  return ref.kind === 'Valid' ? [templateKey(ref.namespace, ref.name)] : [];
};

/** Metal3Data by the claim they serve: `<namespace>/<claim>`. */
export const DATA_BY_CLAIM_INDEX = 'dataclaim.dataByClaim';
export const dataByClaim: IndexFn<Metal3Data> = (data) => {
  const name = data.spec?.claim?.name;
  return name ? [templateKey(data.metadata.namespace ?? '', name)] : [];
};

/** Metal3Data by `spec.template.name`: `<namespace>/<template>`. */
export const DATA_BY_TEMPLATE_INDEX = 'dataclaim.dataByTemplate';
export const dataByTemplate: IndexFn<Metal3Data> = (data) => {
  const name = data.spec?.template?.name;
  return name ? [templateKey(data.metadata.namespace ?? '', name)] : [];
};

/** Metal3Data by `spec.templateReference`: `<namespace>/<reference>`. */
export const DATA_BY_TEMPLATE_REFERENCE_INDEX = 'dataclaim.dataByTemplateReference';
export const dataByTemplateReference: IndexFn<Metal3Data> = (data) => {
  const reference = data.spec?.templateReference;
  return reference ? [templateKey(data.metadata.namespace ?? '', reference)] : [];
};

/** Templates by the Cluster they belong to: `<namespace>/<clusterName>`. */
export const TEMPLATES_BY_CLUSTER_INDEX = 'dataclaim.templatesByCluster';
export const templatesByCluster: IndexFn<Metal3DataTemplate> = (template) => {
  const name = template.spec?.clusterName;
  return name ? [templateKey(template.metadata.namespace ?? '', name)] : [];
};

const requestOf = (obj: Readonly<KubeObject>) => ({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });

/** DT-2: a template → every claim naming it. */
export function templateToClaims(claims: Store<Metal3DataClaim>): MapFn<Metal3DataTemplate> {
  return (template) => claims.byIndex(CLAIMS_BY_TEMPLATE_INDEX, templateKey(template.metadata.namespace ?? '', template.metadata.name ?? '')).map(requestOf);
}

/** A Cluster → the claims of every template of that Cluster. */
export function clusterToClaims(templates: Store<Metal3DataTemplate>, claims: Store<Metal3DataClaim>): MapFn<Cluster> {
  const toClaims = templateToClaims(claims);
  return (cluster) =>
    templates.byIndex(TEMPLATES_BY_CLUSTER_INDEX, templateKey(cluster.metadata.namespace ?? '', cluster.metadata.name ?? '')).flatMap((t) => toClaims(t));
}

/** A Metal3Data → the claim it serves. */
export const dataToClaim: MapFn<Metal3Data> = (data) => {
  const name = data.spec?.claim?.name;
  return name ? [{ namespace: data.metadata.namespace ?? '', name }] : [];
};

/** What a claim reconcile reads from the claim itself; our own finalizer and status writes are not news. */
function claimInputs(claim: Readonly<Metal3DataClaim>): unknown {
  const { labels, annotations, ownerReferences, deletionTimestamp, finalizers } = claim.metadata;
  // Issue 21: a reference (status.renderedData included) turned to another namespace is bad input to report at once.
  const foreign = foreignReferences(claim, REFERENCE_FIELDS.Metal3DataClaim);
  return [
    claim.spec,
    labels ?? {},
    annotations ?? {},
    ownerReferences ?? [],
    deletionTimestamp ?? null,
    finalizers?.includes(DATA_CLAIM_FINALIZER) === true,
    foreign,
  ];
}

/**
 * Claim events: creates and deletes pass; updates pass when the spec, labels, annotations, owners or
 * deletion changed, or our finalizer was added or removed by someone. Status-only writes (ours
 * included) do not. Adding our own finalizer does come back once; that reconcile writes nothing.
 */
export const claimChanged: Predicate<Metal3DataClaim> = {
  update: (old, claim) => !deepEqual(claimInputs(old), claimInputs(claim)),
};

/** What a claim reconcile reads from a template. Its status (our ledger) is not among it. */
function templateInputs(template: Readonly<Metal3DataTemplate>): unknown {
  return [template.spec?.clusterName ?? '', template.spec?.templateReference ?? '', isPausedByAnnotation(template)];
}

/** Template events: creates, and updates of its Cluster, lineage key or pause annotation. */
export const templateChanged: Predicate<Metal3DataTemplate> = {
  create: () => true,
  update: (old, template) => !deepEqual(templateInputs(old), templateInputs(template)),
  delete: () => false,
};

/** Metal3Data events: only its disappearance matters (a claim whose data vanished gets a new one). */
export const dataDeleted: Predicate<Metal3Data> = { create: () => false, update: () => false, delete: () => true };
