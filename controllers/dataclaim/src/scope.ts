// What one claim reconcile reads, all from the informers: the claim, its template, the template's
// Cluster, and the Metal3Data of the claim and of the template's lineage (through the indexes of
// mappers.ts).
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { linkKeysOfTemplate, templateKey, templateRefOf } from './association.ts';
import { DATA_BY_CLAIM_INDEX, DATA_BY_TEMPLATE_INDEX, DATA_BY_TEMPLATE_REFERENCE_INDEX } from './mappers.ts';

/** The informers, with the indexes controller.ts adds. */
export interface DataClaimInformers {
  readonly claims: Informer<Metal3DataClaim>;
  readonly datas: Informer<Metal3Data>;
  readonly templates: Informer<Metal3DataTemplate>;
  readonly clusters: Informer<Cluster>;
}

export interface ClaimScope {
  readonly claim: Readonly<Metal3DataClaim>;
  readonly template: Readonly<Metal3DataTemplate> | undefined;
  readonly cluster: Readonly<Cluster> | undefined;
}

export function readScope(informers: DataClaimInformers, claim: Readonly<Metal3DataClaim>): ClaimScope {
  const ref = templateRefOf(claim);
  const template = ref.kind === 'Valid' ? informers.templates.store.get(ref) : undefined;
  const clusterName = template?.spec?.clusterName;
  const cluster = clusterName ? informers.clusters.store.get({ namespace: template.metadata.namespace ?? '', name: clusterName }) : undefined;
  return { claim, template, cluster };
}

/** Metal3Data naming this claim (any incarnation, any template; association.ts narrows). */
export function datasNamingClaim(informers: DataClaimInformers, claim: Readonly<Metal3DataClaim>): readonly Readonly<Metal3Data>[] {
  return informers.datas.store.byIndex(DATA_BY_CLAIM_INDEX, templateKey(claim.metadata.namespace ?? '', claim.metadata.name ?? ''));
}

/** Candidates for the template's index space: its own Metal3Data and its lineage's (DR-1 rules). */
export function lineageDatas(informers: DataClaimInformers, template: Readonly<Metal3DataTemplate>): readonly Readonly<Metal3Data>[] {
  const keys = linkKeysOfTemplate(template);
  const byName = new Map<string, Readonly<Metal3Data>>();
  const add = (list: readonly Readonly<Metal3Data>[]) => {
    for (const data of list) byName.set(data.metadata.name ?? '', data);
  };
  for (const key of keys.byTemplateName) add(informers.datas.store.byIndex(DATA_BY_TEMPLATE_INDEX, key));
  for (const key of keys.byTemplateReference) add(informers.datas.store.byIndex(DATA_BY_TEMPLATE_REFERENCE_INDEX, key));
  return [...byName.values()];
}
