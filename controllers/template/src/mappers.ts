// Metal3Machine events that wake a template (T-2): a machine cloned from a Metal3MachineTemplate maps
// to that template, so a machine created (or edited) after the template changed still gets the
// template's automatedCleaningMode without waiting for the next template change.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { MapFn } from '@metal3-ts/shared/controller/handlers';
import type { Predicate } from '@metal3-ts/shared/controller/predicates';
import { hasPausedAnnotation } from '@metal3-ts/shared/meta/paused';
import { clonedFromTemplate } from './cloned-from.ts';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION } from './names.ts';

/**
 * The template a machine was cloned from. Unlike CAPM3 (E-15, where any non-empty groupkind maps
 * to a template of that name), the groupkind must be exactly Metal3MachineTemplate's.
 */
export const metal3MachineToTemplate: MapFn<Metal3Machine> = (machine) => {
  const key = clonedFromTemplate(machine);
  return key ? [key] : [];
};

/** What a template reconcile reads from a machine; a change to anything else cannot matter to it. */
function propagationInputs(machine: Readonly<Metal3Machine>): string {
  const annotations = machine.metadata.annotations ?? {};
  return JSON.stringify([
    machine.spec?.automatedCleaningMode ?? null,
    annotations[CLONED_FROM_NAME_ANNOTATION] ?? null,
    annotations[CLONED_FROM_GROUPKIND_ANNOTATION] ?? null,
    // An unpaused machine passes the event filter again: let that event through too.
    hasPausedAnnotation(machine),
  ]);
}

/**
 * Machine events worth a template reconcile: creates, and updates that change the machine's mode or
 * its cloned-from annotations. The Metal3Machine controller writes status often; those writes are
 * dropped here. Deletes are dropped: a machine that is gone needs nothing.
 */
export const propagationInputsChanged: Predicate<Metal3Machine> = {
  create: () => true,
  update: (old, machine) => propagationInputs(old) !== propagationInputs(machine),
  delete: () => false,
};
