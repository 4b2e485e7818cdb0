// The scope of one Metal3MachineTemplate reconcile, read once from the informers: the template, the
// Metal3Machines cloned from it (by index, never a list of every machine, E-35) and the plan made of
// them. Phases record what their writes came to in `observed`, the only mutable part.
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { Request } from '@metal3-ts/shared/reconcile/reconcile';
import { CLONED_FROM_TEMPLATE_INDEX, templateIndexValue } from './cloned-from.ts';
import type { TemplateReconcilerDeps } from './context.ts';
import { planTemplate, type TemplatePlan } from './plan.ts';
import type { PropagationOutcome } from './phases/propagate-cleaning-mode.ts';

export interface TemplateScope {
  readonly template: Readonly<Metal3MachineTemplate>;
  readonly machines: readonly Readonly<Metal3Machine>[];
  readonly plan: TemplatePlan;
  readonly log: Logger;
  readonly observed: {
    /** T-6: what the writes of the cleaning-mode phase came to. */
    propagation?: PropagationOutcome;
  };
}

/** The scope of `request`, or undefined when the template is gone (T-4: its machines keep what they have). */
export function readScope(deps: Pick<TemplateReconcilerDeps, 'templates' | 'machines'>, request: Request, log: Logger): TemplateScope | undefined {
  const template = deps.templates.store.get(request);
  if (!template) return undefined;
  const { namespace = '', name = '' } = template.metadata;
  const machines = deps.machines.store.byIndex(CLONED_FROM_TEMPLATE_INDEX, templateIndexValue({ namespace, name }));
  return { template, machines, plan: planTemplate(template, machines), log, observed: {} };
}
