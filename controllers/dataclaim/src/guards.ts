// What one reconcile of a claim must do, decided from what the informers hold (research DT-5…DT-7,
// DT-10, DT-11, DT-15, §0.6). Pure, so every branch is a table test.
//
// As upstream: nothing is written while the template's Cluster is paused (or the template carries
// the pause annotation; here the claim's own annotation counts too), deletion included, and nothing is
// allocated before the template's Cluster exists. Changed (docs/compatibility.md): a claim with an unusable
// reference or a missing template gets `status.errorMessage` and a Warning event instead of silence;
// a deleting claim is released even when its template or Cluster is gone (upstream never reconciles
// it then, so its finalizer stays for ever); nothing is polled — the watches bring the claim back.
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import { isPaused } from '@metal3-ts/shared/meta/paused';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { templateRefOf } from './association.ts';
import { DATA_CLAIM_FINALIZER, REASONS } from './names.ts';

export interface GuardInputs {
  readonly claim: Readonly<Metal3DataClaim>;
  /** The template the claim names, when its reference is valid and the template exists. */
  readonly template: Readonly<Metal3DataTemplate> | undefined;
  /** The template's Cluster (`spec.clusterName`), when found. */
  readonly cluster: Readonly<Cluster> | undefined;
}

export type Guard =
  /** Deleting and our finalizer is already gone: nothing left to do. */
  | { readonly kind: 'Done' }
  /** The Cluster is paused (spec.paused) or the template or claim carries the pause annotation. */
  | { readonly kind: 'Paused' }
  /** DT-5: the template's Cluster does not exist (yet); its creation wakes the claim. */
  | { readonly kind: 'WaitForCluster'; readonly clusterName: string }
  /** The claim cannot be served as it stands: written to status.errorMessage, with an event. */
  | { readonly kind: 'Invalid'; readonly reason: string; readonly message: string }
  /** DT-15: give back the Metal3Data and the index, then remove our finalizer. */
  | { readonly kind: 'Release' }
  /** DT-11…DT-14: make sure the claim has its Metal3Data. */
  | { readonly kind: 'Allocate'; readonly template: Readonly<Metal3DataTemplate> };

export function guard({ claim, template, cluster }: GuardInputs): Guard {
  const paused = isPaused(cluster, template ?? {}) || isPaused(undefined, claim);
  if (claim.metadata.deletionTimestamp) {
    if (!hasFinalizer(claim, DATA_CLAIM_FINALIZER)) return { kind: 'Done' };
    return paused ? { kind: 'Paused' } : { kind: 'Release' };
  }
  if (paused) return { kind: 'Paused' };
  // Issue 21: every reference of the shared table is read in the claim's namespace; a record saying
  // otherwise is bad input. spec.template is worded by templateRefOf (with its other problems).
  const foreign = foreignReferences(claim, REFERENCE_FIELDS.Metal3DataClaim).find((f) => f.field !== 'spec.template.namespace');
  if (foreign) {
    return {
      kind: 'Invalid',
      reason: foreign.field === 'status.renderedData.namespace' ? REASONS.foreignRenderedData : REASONS.foreignReference,
      message:
        `${foreign.field}: Invalid value: "${foreign.namespace}": must be empty or match the Metal3DataClaim namespace; cross-namespace references are not allowed`,
    };
  }
  const ref = templateRefOf(claim);
  if (ref.kind === 'Invalid') return { kind: 'Invalid', reason: REASONS.invalidTemplateReference, message: ref.message };
  if (!template) {
    return {
      kind: 'Invalid',
      reason: REASONS.templateNotFound,
      message: `spec.template.name: Not found: Metal3DataTemplate "${ref.name}" does not exist in namespace "${ref.namespace}"`,
    };
  }
  if (!cluster) return { kind: 'WaitForCluster', clusterName: template.spec?.clusterName ?? '' };
  return { kind: 'Allocate', template };
}
