// Cluster API's order for metav1 conditions: Available, then Ready, then the rest by type.
import type { MetaV1Condition } from '@metal3-ts/generated';

const FIRST = ['Available', 'Ready'];

export function compareV1Beta2ConditionTypes(a: string, b: string): number {
  if (a === b) return 0;
  const ia = FIRST.indexOf(a);
  const ib = FIRST.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? FIRST.length : ia) - (ib < 0 ? FIRST.length : ib);
  return a < b ? -1 : 1;
}

/** Sorts a metav1 condition list in place and returns it. */
export function sortV1Beta2Conditions(conditions: MetaV1Condition[]): MetaV1Condition[] {
  return conditions.sort((a, b) => compareV1Beta2ConditionTypes(a.type, b.type));
}
