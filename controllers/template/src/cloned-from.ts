// Which Metal3MachineTemplate a Metal3Machine was cloned from. Cluster API records it in two
// annotations when it clones `spec.template.spec` into a new Metal3Machine (N-1); the template is
// always in the machine's namespace. Both annotations must agree (T-6): a machine cloned from some
// other kind's template of the same name is not ours.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { IndexFn } from '@metal3-ts/shared/cache/types';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, METAL3_MACHINE_TEMPLATE_GROUPKIND } from './names.ts';

import type { TemplateKey } from '@metal3-ts/baremetal/node-reuse-policy';

export type { TemplateKey };

/** The template `machine` was cloned from, or undefined when it was not cloned from a Metal3MachineTemplate. */
export function clonedFromTemplate(machine: Readonly<Metal3Machine>): TemplateKey | undefined {
  const annotations = machine.metadata.annotations ?? {};
  const name = annotations[CLONED_FROM_NAME_ANNOTATION];
  const namespace = machine.metadata.namespace;
  if (!name || !namespace || annotations[CLONED_FROM_GROUPKIND_ANNOTATION] !== METAL3_MACHINE_TEMPLATE_GROUPKIND) return undefined;
  return { namespace, name };
}

/** The informer index that files Metal3Machines under their template (see `templateIndexValue`). */
export const CLONED_FROM_TEMPLATE_INDEX = 'clonedFromMetal3MachineTemplate';

/** `namespace/name`: the value a template's machines are filed under. */
export function templateIndexValue(key: TemplateKey): string {
  return `${key.namespace}/${key.name}`;
}

/**
 * Files a Metal3Machine under the template it was cloned from, so a template reconcile reads exactly
 * its own machines instead of listing every Metal3Machine (E-35).
 */
export const byClonedFromTemplate: IndexFn<Metal3Machine> = (machine) => {
  const key = clonedFromTemplate(machine);
  return key ? [templateIndexValue(key)] : [];
};
