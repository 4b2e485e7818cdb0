// What a reconcile of one Metal3DataTemplate may do, from the template, its Cluster and what still
// uses it (research DT-4…DT-8). This controller owns the template's life cycle only: the finalizer,
// the Cluster owner reference and the deletion rule. Claims, indexes and Metal3Data creation are the
// allocation side's (controllers/dataclaim).
//
// Changed from upstream (docs/compatibility.md):
// - DT-6: a paused template or Cluster gets no write at all (upstream still adds the owner
//   reference) and no 30 s requeue: unpausing is an event;
// - DT-7: a deletion waiting for claims or Metal3Data is woken by their changes (upstream waits on
//   claim events, or polls every 30 s for Metal3Data); the poll stays as a safety net;
// - E-43: a missing Cluster is waited out until the Cluster's creation event, not until some
//   unrelated event happens to come.
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { METAL3_DATA_TEMPLATE_FINALIZER } from '../names.ts';

export type TemplateGuard =
  /** Deleting without our finalizer: nothing to do. */
  | { readonly kind: 'NotOurs' }
  /** DT-5: not deleting and the Cluster does not exist (yet). */
  | { readonly kind: 'WaitForCluster'; readonly clusterName: string }
  /** DT-6. */
  | { readonly kind: 'Paused' }
  /** DT-7. */
  | { readonly kind: 'Delete' }
  /** DT-6, DT-8: owner reference and finalizer. */
  | { readonly kind: 'Reconcile'; readonly cluster: Readonly<Cluster> };

/** `cluster` is the Cluster `spec.clusterName` names in the template's namespace, as found. */
export function templateGuard(template: Readonly<Metal3DataTemplate>, cluster: Readonly<Cluster> | undefined): TemplateGuard {
  const deleting = template.metadata.deletionTimestamp !== undefined;
  if (deleting && !hasFinalizer(template, METAL3_DATA_TEMPLATE_FINALIZER)) return { kind: 'NotOurs' };
  if (!deleting && !cluster) return { kind: 'WaitForCluster', clusterName: template.spec?.clusterName ?? '' };
  if (isPaused(cluster, template)) return { kind: 'Paused' };
  if (deleting) return { kind: 'Delete' };
  return { kind: 'Reconcile', cluster: cluster! };
}

/** DR-1, E-30: a claim or Metal3Data uses a template by name inside one namespace. */
const usesTemplate = (template: Readonly<Metal3DataTemplate>) => (obj: Readonly<Metal3DataClaim | Metal3Data>): boolean =>
  obj.metadata.namespace === template.metadata.namespace && obj.spec?.template?.name === template.metadata.name;

/**
 * DT-7: what a deleting template waits for: claims of it that are not being deleted (they may still
 * get a Metal3Data), and every Metal3Data rendered from it. Undefined when nothing is left.
 */
export function deletionBlockers(
  template: Readonly<Metal3DataTemplate>,
  claims: readonly Readonly<Metal3DataClaim>[],
  datas: readonly Readonly<Metal3Data>[],
): string | undefined {
  const uses = usesTemplate(template);
  const liveClaims = claims.filter((c) => uses(c) && !c.metadata.deletionTimestamp).map((c) => c.metadata.name ?? '').sort();
  const rendered = datas.filter(uses).map((d) => d.metadata.name ?? '').sort();
  const parts: string[] = [];
  if (liveClaims.length > 0) parts.push(`Metal3DataClaims ${liveClaims.join(', ')}`);
  if (rendered.length > 0) parts.push(`Metal3Data ${rendered.join(', ')}`);
  return parts.length > 0 ? `Waiting for ${parts.join(' and ')} to be deleted` : undefined;
}
