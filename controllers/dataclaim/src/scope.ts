// What one claim reconcile works on. `readScope` reads everything from the informers once: the claim,
// its template, the template's Cluster, the Metal3Data naming the claim, and the guard's decision.
// Phases then record what they find and do in `observed` (the only mutable part), and `deriveStatus`
// (status.ts) turns the scope into the claim's status. Nothing here does I/O but cache reads.
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { linkKeysOfTemplate, templateKey, templateRefOf } from './association.ts';
import { type Guard, guard } from './guards.ts';
import { DATA_BY_CLAIM_INDEX, DATA_BY_TEMPLATE_INDEX, DATA_BY_TEMPLATE_REFERENCE_INDEX } from './mappers.ts';

/** The informers, with the indexes controller.ts adds. */
export interface DataClaimInformers {
  readonly claims: Informer<Metal3DataClaim>;
  readonly datas: Informer<Metal3Data>;
  readonly templates: Informer<Metal3DataTemplate>;
  readonly clusters: Informer<Cluster>;
}

/** Bad input or a failed write, for the user: status.errorMessage and a Warning event. */
export interface Problem {
  readonly reason: string;
  readonly message: string;
}

/** What the claim's one status write came to (status-write.ts). */
export type Binding =
  /** The claim's status says what deriveStatus said (written now, or already). */
  | { readonly kind: 'Bound'; readonly claim: Readonly<Metal3DataClaim> }
  /** Another writer recorded a different Metal3Data for the claim first. */
  | { readonly kind: 'BoundElsewhere'; readonly name: string }
  /** The claim is gone or being deleted: release takes over. */
  | { readonly kind: 'ClaimGone' };

/** What the phases of this reconcile found and did. */
export interface Observations {
  /** The claim as this reconcile last saw it on the server (after our finalizer write), else as cached. */
  claim: Readonly<Metal3DataClaim>;
  /** The Metal3Data serving the claim: found, adopted or created. */
  data?: Readonly<Metal3Data> | undefined;
  /** The index of the claim's recorded Metal3Data when that one is gone: tried first. */
  preferred?: number | undefined;
  /** What to tell the user (the guard's own verdicts are read from `decision`). */
  problem?: Problem | undefined;
  /** Release: every Metal3Data of the claim was given back. */
  released: boolean;
  /** The status write's outcome; set before the phases that rely on it run. */
  binding?: Binding | undefined;
  /** Failed phases and writes (StepErrors), in order; the reconcile throws them at the end. */
  readonly errors: unknown[];
}

export interface ClaimScope {
  /** `namespace/name` of the claim. */
  readonly key: string;
  /** `Metal3DataClaim namespace/name`: how failures (StepError) name it. */
  readonly object: string;
  /** The claim as the cache held it when the reconcile began. */
  readonly claim: Readonly<Metal3DataClaim>;
  readonly template: Readonly<Metal3DataTemplate> | undefined;
  readonly cluster: Readonly<Cluster> | undefined;
  /** Metal3Data naming this claim (any incarnation, any template; association.ts narrows). */
  readonly datas: readonly Readonly<Metal3Data>[];
  readonly decision: Guard;
  readonly observed: Observations;
}

export function readScope(informers: DataClaimInformers, claim: Readonly<Metal3DataClaim>): ClaimScope {
  const ref = templateRefOf(claim);
  const template = ref.kind === 'Valid' ? informers.templates.store.get(ref) : undefined;
  const clusterName = template?.spec?.clusterName;
  const cluster = clusterName ? informers.clusters.store.get({ namespace: template.metadata.namespace ?? '', name: clusterName }) : undefined;
  const datas = datasNamingClaim(informers, claim);
  const key = templateKey(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
  return {
    key,
    object: `Metal3DataClaim ${key}`,
    claim,
    template,
    cluster,
    datas,
    decision: guard({ claim, template, cluster }),
    observed: { claim, released: false, errors: [] },
  };
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
