// The template's ledger (research DT-9, DT-14, DT-15): `status.indexes` (claim → index, as the
// pinned schema has it) and `status.dataNames` (claim → Metal3Data name, ours), plus `lastUpdated`.
// CAPM3 rebuilds the whole map from the Metal3Data list on every template reconcile and writes it
// with the template's deferred patch. Here each claim writes only its own key with a JSON merge
// patch: patches of different keys commute, so concurrent workers and replicas never conflict or
// undo each other, and the Metal3Data objects stay the source of truth for allocation.
import type { MergePatch } from '@metal3-ts/generated';
import type { Metal3DataTemplate, Metal3DataTemplateStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';

/** A claim's entry, or null to drop it. */
export type LedgerEntry = { readonly index: number; readonly dataName: string } | null;

/** Whether the template's status already says `entry` for `claim`. */
export function ledgerHas(status: Readonly<Metal3DataTemplateStatus> | undefined, claim: string, entry: LedgerEntry): boolean {
  const index = status?.indexes?.[claim];
  const name = status?.dataNames?.[claim];
  if (entry === null) return index === undefined && name === undefined;
  return index === entry.index && name === entry.dataName;
}

/** The merge patch writing `entries` (claim → entry) into a template's status. */
export function ledgerPatch(entries: ReadonlyMap<string, LedgerEntry>, now: Date): MergePatch<Metal3DataTemplate> {
  const indexes: Record<string, number | null> = {};
  const dataNames: Record<string, string | null> = {};
  for (const [claim, entry] of entries) {
    indexes[claim] = entry ? entry.index : null;
    dataNames[claim] = entry ? entry.dataName : null;
  }
  // RFC 3339 to the second, as metav1.Time marshals.
  return { status: { indexes, dataNames, lastUpdated: now.toISOString().replace(/\.\d{3}Z$/, 'Z') } };
}

/** The claim's current entry on a template, as the ledger reads it. */
export function ledgerEntryOf(template: Readonly<Metal3DataTemplate>, claim: string): LedgerEntry {
  const index = template.status?.indexes?.[claim];
  const name = template.status?.dataNames?.[claim];
  return index === undefined || name === undefined ? null : { index, dataName: name };
}
