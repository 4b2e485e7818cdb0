// What one reconcile of a Metal3MachineTemplate will do, decided from the template and its machines
// alone (pure, T-5, T-6, issue 21): whether it is paused, which of its references point into another
// namespace, and the cleaning-mode plan (cleaning-mode.ts). The phases carry it out.
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { hasPausedAnnotation } from '@metal3-ts/shared/meta/paused';
import { foreignReferences, REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { type CleaningModePlan, planCleaningMode } from './cleaning-mode.ts';

export interface TemplatePlan {
  /** T-5: the paused annotation; nothing is done (CAPM3 polls every 30 s, removing it is an event that brings us back). */
  readonly paused: boolean;
  /**
   * Issue 21: Cluster API copies the template's references into every Metal3Machine, which refuses
   * one into another namespace; the template, where it must be fixed, says so too (this message).
   */
  readonly foreignReferences: string | undefined;
  readonly cleaningMode: CleaningModePlan;
}

export function planTemplate(template: Readonly<Metal3MachineTemplate>, machines: readonly Readonly<Metal3Machine>[]): TemplatePlan {
  return { paused: hasPausedAnnotation(template), foreignReferences: foreignReferencesMessage(template), cleaningMode: planCleaningMode(template, machines) };
}

function foreignReferencesMessage(template: Readonly<Metal3MachineTemplate>): string | undefined {
  const foreign = foreignReferences(template, REFERENCE_FIELDS.Metal3MachineTemplate);
  if (foreign.length === 0) return undefined;
  const fields = foreign.map((f) => `${f.field} ("${f.namespace}")`).join(', ');
  return `${fields}: must be empty or the Metal3MachineTemplate namespace "${
    template.metadata.namespace ?? ''
  }"; cross-namespace references are not allowed (its Metal3Machines fail with InvalidConfiguration)`;
}
