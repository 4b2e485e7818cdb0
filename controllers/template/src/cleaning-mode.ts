// The one decision of this controller (T-6, N-2): which of a template's Metal3Machines need the
// template's `automatedCleaningMode`. Pure: the caller passes the machines it found.
//
// Differences from CAPM3 (docs/compatibility.md): machines that already have the mode are not written
// (E-35: CAPM3 updates every cloned machine on every reconcile), paused machines are left alone until
// they are unpaused (CAPM3 writes them too), and a value the Metal3Machine API would reject is
// reported instead of being written to every machine and failing each time.
import { hasPausedAnnotation } from '@metal3-ts/shared/meta/paused';
import type { Metal3Machine, Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { clonedFromTemplate } from './cloned-from.ts';
import { CLEANING_MODE_FIELD } from './names.ts';
import { compareCodeUnits } from '@metal3-ts/shared/meta/compare';

/** Ironic automated cleaning as the BareMetalHost API knows it (research W-14). */
export type CleaningMode = 'metadata' | 'disabled';

export const CLEANING_MODES: readonly CleaningMode[] = ['metadata', 'disabled'];

export function isCleaningMode(value: unknown): value is CleaningMode {
  return (CLEANING_MODES as readonly unknown[]).includes(value);
}

/** The template's mode: unset (machines untouched), a supported value, or something else. */
export type TemplateCleaningMode =
  | { readonly kind: 'unset' }
  | { readonly kind: 'valid'; readonly mode: CleaningMode }
  | { readonly kind: 'invalid'; readonly message: string };

/**
 * Reads `spec.template.spec.automatedCleaningMode`. The CRD's enum keeps other values out, but a
 * template stored under an older or hand-edited CRD can still carry one; its message names the
 * field the way the apiserver would.
 */
export function templateCleaningMode(template: Readonly<Metal3MachineTemplate>): TemplateCleaningMode {
  const value: unknown = template.spec?.template?.spec?.automatedCleaningMode;
  if (value === undefined || value === null) return { kind: 'unset' };
  if (isCleaningMode(value)) return { kind: 'valid', mode: value };
  const supported = CLEANING_MODES.map((m) => JSON.stringify(m)).join(', ');
  return { kind: 'invalid', message: `${CLEANING_MODE_FIELD}: Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}` };
}

export type CleaningModePlan =
  /** T-6: the template does not set the mode; its machines keep theirs (clearing it resets nothing). */
  | { readonly kind: 'unset' }
  /** Nothing is written; the template's author has to fix the value. */
  | { readonly kind: 'invalid'; readonly message: string }
  | {
    readonly kind: 'propagate';
    readonly mode: CleaningMode;
    /** Machines whose mode differs from the template's, in name order. */
    readonly updates: readonly Readonly<Metal3Machine>[];
    /** Machines of the template that already have the mode. */
    readonly inSync: number;
    /**
     * Machines of the template carrying `cluster.x-k8s.io/paused` whose mode differs: not written
     * now; unpausing one is a machine event that brings the template back to them.
     */
    readonly paused: number;
  };

/**
 * What to write so that every Metal3Machine cloned from `template` (both cloned-from annotations
 * naming it, same namespace) carries the template's automatedCleaningMode. Machines of other
 * templates are ignored even if the caller passes them.
 */
export function planCleaningMode(template: Readonly<Metal3MachineTemplate>, machines: readonly Readonly<Metal3Machine>[]): CleaningModePlan {
  const wanted = templateCleaningMode(template);
  if (wanted.kind !== 'valid') return wanted;
  const { namespace, name } = template.metadata;
  const own = machines.filter((machine) => {
    const key = clonedFromTemplate(machine);
    return key !== undefined && key.namespace === namespace && key.name === name;
  });
  const differ = own.filter((machine) => machine.spec?.automatedCleaningMode !== wanted.mode);
  const updates = differ
    .filter((machine) => !hasPausedAnnotation(machine))
    .sort((a, b) => compareCodeUnits(a.metadata.name ?? '', b.metadata.name ?? ''));
  return { kind: 'propagate', mode: wanted.mode, updates, inSync: own.length - differ.length, paused: differ.length - updates.length };
}
