// The phases of a Metal3DataTemplate reconcile (DT-6…DT-8), each `(ctx, scope)` as ../phase.ts
// describes: a live template gets the Cluster owner reference and then our finalizer; a deleting one
// waits until nothing uses it (DT-7) and then loses our finalizer. Every write is a guarded JSON patch
// of its own: the allocation side and Cluster API write the same object, and none of their
// references or finalizers may be lost.
import type { Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Logger } from '@metal3-ts/shared/log/logger';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { DATA_BY_TEMPLATE_INDEX } from '../mappers.ts';
import { METAL3_DATA_TEMPLATE_FINALIZER } from '../names.ts';
import { type Phase, recorded } from '../phase.ts';
import { deletionBlockers } from './guards.ts';
import { CLAIM_BY_TEMPLATE_INDEX } from './mappers.ts';
import { ensureClusterOwnerReference } from './owner.ts';
import type { TemplateInformers, TemplateOutcome, TemplateScope, TemplateStep } from './scope.ts';

export interface TemplatePhaseContext {
  readonly informers: TemplateInformers;
  readonly log: Logger;
}

export type TemplatePhase = Phase<TemplatePhaseContext, TemplateScope, TemplateOutcome, TemplateStep>;
type Result = Promise<TemplateOutcome | undefined>;

/** DT-6. Writes: metadata.ownerReferences (the Cluster's appended, once). Records the written template. */
export async function addOwnerReference(_ctx: TemplatePhaseContext, scope: TemplateScope): Result {
  const written = await ensureClusterOwnerReference(scope.api, scope.observed.template, recorded(scope.cluster, 'the Cluster'));
  if (written) scope.observed.template = written;
  return undefined;
}

/** DT-8. Writes: metadata.finalizers (ours appended). */
export async function addFinalizer(_ctx: TemplatePhaseContext, scope: TemplateScope): Result {
  const written = await ensureFinalizer(scope.api, scope.observed.template as Metal3DataTemplate, METAL3_DATA_TEMPLATE_FINALIZER);
  if (written) scope.observed.template = written;
  return undefined;
}

/** DT-7: the live claims and every Metal3Data of the template hold its deletion. Writes nothing. */
export function awaitUsers(ctx: TemplatePhaseContext, scope: TemplateScope): TemplateOutcome | undefined {
  const { informers } = ctx;
  const claims = informers.claims.store.byIndex(CLAIM_BY_TEMPLATE_INDEX, scope.key);
  const message = deletionBlockers(scope.cached, claims, informers.datas.store.byIndex(DATA_BY_TEMPLATE_INDEX, scope.key));
  return message ? { kind: 'AwaitingUsers', message } : undefined;
}

/** DT-7. Writes: metadata.finalizers (ours removed). */
export async function removeFinalizer(_ctx: TemplatePhaseContext, scope: TemplateScope): Result {
  await removeFinalizerGuarded(scope.api, scope.cached as Metal3DataTemplate, METAL3_DATA_TEMPLATE_FINALIZER);
  return undefined;
}
