// One Metal3MachineTemplate reconcile (T-4…T-7): read the template and its machines from the cache,
// skip a paused template, plan, write only the machines that differ. The template itself is never
// written: no finalizer (0.1), no status (the CRD has none), so problems are reported as Events on
// it and in the log, and bad input ends the reconcile without a retry.
import type { Client } from '@metal3-ts/generated';
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Informer } from '@metal3-ts/shared/cache/types';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import { hasPausedAnnotation } from '@metal3-ts/shared/meta/paused';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import type { ReconcileContext, ReconcileFn, Request, Result } from '@metal3-ts/shared/reconcile/reconcile';
import { planCleaningMode } from './cleaning-mode.ts';
import { CLONED_FROM_TEMPLATE_INDEX, templateIndexValue } from './cloned-from.ts';
import { CleaningModeRejectedError, InvalidCleaningModeError, MachineUpdateError } from './errors.ts';
import { REASONS } from './names.ts';
import { propagateCleaningMode } from './phases/propagate-cleaning-mode.ts';

export interface TemplateReconcilerDeps {
  /** Writes Metal3Machines; a write-through client lets the next reconcile read its own writes. */
  readonly client: Client;
  readonly templates: Informer<Metal3MachineTemplate>;
  /** Must carry the CLONED_FROM_TEMPLATE_INDEX index (controller.ts adds it). */
  readonly machines: Informer<Metal3Machine>;
  readonly events?: EventRecorder | undefined;
}

export function templateReconciler(deps: TemplateReconcilerDeps): ReconcileFn {
  return (request, context) => reconcileTemplate(deps, request, context);
}

export async function reconcileTemplate(deps: TemplateReconcilerDeps, request: Request, { log }: ReconcileContext): Promise<Result> {
  const template = deps.templates.store.get(request);
  // T-4: gone; its machines keep what they have.
  if (!template) return {};
  // T-5: paused. CAPM3 polls every 30 s; removing the annotation is an event that brings us back.
  if (hasPausedAnnotation(template)) {
    log.debug('Metal3MachineTemplate is paused, not propagating');
    return {};
  }
  const { namespace = '', name = '' } = template.metadata;
  // Issue 21: Cluster API copies these references into every Metal3Machine, which refuses them; the
  // template, where they must be fixed, says so too. Cleaning mode still propagates (it names nothing).
  const foreign = foreignReferences(template, REFERENCE_FIELDS.Metal3MachineTemplate);
  if (foreign.length > 0) {
    const fields = foreign.map((f) => `${f.field} ("${f.namespace}")`).join(', ');
    const message =
      `${fields}: must be empty or the Metal3MachineTemplate namespace "${namespace}"; cross-namespace references are not allowed (its Metal3Machines fail with InvalidConfiguration)`;
    log.info('Metal3MachineTemplate names another namespace', { message });
    deps.events?.warning(template, REASONS.foreignReference, message);
  }
  const machines = deps.machines.store.byIndex(CLONED_FROM_TEMPLATE_INDEX, templateIndexValue({ namespace, name }));
  const plan = planCleaningMode(template, machines);
  if (plan.kind === 'unset') return {};
  if (plan.kind === 'invalid') {
    deps.events?.warning(template, REASONS.invalid, plan.message);
    throw new InvalidCleaningModeError(plan.message);
  }
  if (plan.updates.length === 0) {
    if (plan.paused) log.debug('paused Metal3Machines wait for their unpause', { paused: plan.paused });
    return {};
  }

  const outcome = await propagateCleaningMode(deps, template, plan.mode, plan.updates);
  log.info('propagated automatedCleaningMode', {
    mode: plan.mode,
    updated: outcome.updated.length,
    inSync: plan.inSync,
    ...(plan.paused ? { paused: plan.paused } : {}),
    ...(outcome.gone.length ? { gone: outcome.gone.length } : {}),
    ...(outcome.rejected.length ? { rejected: outcome.rejected.map((r) => r.name) } : {}),
  });
  if (outcome.failed.length > 0) {
    throw new MachineUpdateError(outcome.failed.map((f) => f.name), outcome.failed.map((f) => f.error));
  }
  if (outcome.rejected.length > 0) {
    throw new CleaningModeRejectedError(outcome.rejected.map((r) => r.name), outcome.rejected.map((r) => r.message).join('; '));
  }
  return {};
}
