// Wiring of the Metal3MachineTemplate controller (T-1…T-3): templates, plus Metal3Machines mapped
// to the template they were cloned from, both behind the pause filter of research 0.6.
//
// The watch-filter: CAPM3's main.go gives this controller an empty value, so templates and machines
// are propagated whatever their `cluster.x-k8s.io/watch-filter` label. We keep that (templates are
// rarely labelled, and a filter here would silently stop propagation for them); two instances with
// different filters both converge on the template's value, and one that finds the machines in sync
// writes nothing. See docs/compatibility.md.
import type { Client } from '@metal3-ts/generated';
import { Metal3MachineResource, Metal3MachineTemplateResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type ControllerDeps, controllerFor } from '@metal3-ts/shared/controller/builder';
import type { Controller } from '@metal3-ts/shared/controller/controller';
import { resourceNotPausedAndHasFilterLabel } from '@metal3-ts/shared/controller/predicates';
import { byClonedFromTemplate, CLONED_FROM_TEMPLATE_INDEX } from './cloned-from.ts';
import { metal3MachineToTemplate, propagationInputsChanged } from './mappers.ts';
import { CONTROLLER_NAME } from './names.ts';
import { templateReconciler } from './reconcile.ts';

/** What the controller needs; `MainDeps` from runMain fits, and tests build it in-process. */
export interface TemplateControllerDeps extends ControllerDeps {
  /** Preferably a WriteThroughClient over `informers`, so reconciles read their own writes. */
  readonly client: Client;
  /** `--concurrency` (CAPM3: `--metal3machinetemplate-concurrency`, default 10). */
  readonly config: { readonly concurrency: number };
}

/** T-3: the pause annotation only; CAPM3 passes this controller no watch-filter value. */
export const templateEventFilter = resourceNotPausedAndHasFilterLabel('');

export function templateController(deps: TemplateControllerDeps): Controller {
  const { client, informers, events, config } = deps;
  const templates = informers.informerFor(Metal3MachineTemplateResource);
  const machines = informers.informerFor(Metal3MachineResource);
  machines.addIndex(CLONED_FROM_TEMPLATE_INDEX, byClonedFromTemplate);
  return controllerFor(CONTROLLER_NAME, Metal3MachineTemplateResource, deps)
    .withEventFilter(templateEventFilter)
    .watches(Metal3MachineResource, metal3MachineToTemplate, { predicates: [propagationInputsChanged] })
    .withOptions({ maxConcurrentReconciles: config.concurrency })
    .build(templateReconciler({ client, templates, machines, events }));
}
