// What one reconcile of a Metal3DataTemplate works on. `readTemplateScope` reads the template and its
// Cluster from the informers once and takes the guard's decision (guards.ts); the phases
// (phases.ts) then record what they find in `observed`, the only mutable part. Cache reads only.
import type { Api, Client } from '@metal3-ts/generated';
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3Data,
  type Metal3DataClaim,
  type Metal3DataTemplate,
  Metal3DataTemplateResource,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import { type Request, requestKey } from '@metal3-ts/shared/reconcile/reconcile';
import { type TemplateGuard, templateGuard } from './guards.ts';

export interface TemplateInformers {
  readonly templates: Informer<Metal3DataTemplate>;
  readonly clusters: Informer<Cluster>;
  readonly claims: Informer<Metal3DataClaim>;
  readonly datas: Informer<Metal3Data>;
}

/** The named units of work of a template reconcile; a failure carries the one it happened in. */
export type TemplateStep = 'owner reference' | 'finalizer' | 'users' | 'finalizer removal';

/** DT-7: a deleting template waits for the claims and Metal3Data still using it (`message` names them). */
export type TemplateOutcome = { readonly kind: 'AwaitingUsers'; readonly message: string };

export interface TemplateObservations {
  /** The template as this reconcile last wrote or read it (the owner reference write feeds the finalizer's). */
  template: Readonly<Metal3DataTemplate>;
  outcome?: TemplateOutcome | undefined;
  /** Failed steps (StepErrors), in order; thrown together at the end. */
  readonly errors: unknown[];
}

export interface TemplateScope {
  /** `namespace/name`: the key of the template's users in the indexes. */
  readonly key: string;
  /** `Metal3DataTemplate namespace/name`: the object named in StepErrors. */
  readonly object: string;
  readonly cached: Readonly<Metal3DataTemplate>;
  /** The Cluster `spec.clusterName` names, when it exists. */
  readonly cluster: Readonly<Cluster> | undefined;
  readonly decision: TemplateGuard;
  readonly api: Api<Metal3DataTemplate>;
  readonly observed: TemplateObservations;
}

/** The scope of `request`, or undefined when the template does not exist (DT-4). */
export function readTemplateScope(informers: TemplateInformers, client: Client, request: Request): TemplateScope | undefined {
  const cached = informers.templates.store.get(request);
  if (!cached) return undefined;
  const clusterName = cached.spec?.clusterName;
  const cluster = clusterName ? informers.clusters.store.get({ namespace: request.namespace, name: clusterName }) : undefined;
  return {
    key: `${request.namespace ?? ''}/${request.name}`,
    object: `Metal3DataTemplate ${requestKey(request)}`,
    cached,
    cluster,
    decision: templateGuard(cached, cluster),
    api: client.api(Metal3DataTemplateResource, request.namespace),
    observed: { template: cached, errors: [] },
  };
}
