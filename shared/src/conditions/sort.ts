// The order kubectl users expect from Cluster API objects: Ready first, then the rest by type.
import type { Condition } from '@metal3-ts/generated';
import { READY_CONDITION } from './types.ts';

/** Ready sorts before every other type; the rest sort by type. */
export function compareConditionTypes(a: string, b: string): number {
  if (a === b) return 0;
  if (a === READY_CONDITION) return -1;
  if (b === READY_CONDITION) return 1;
  return a < b ? -1 : 1;
}

/** Sorts a v1beta1 condition list in place (Ready first, then by type) and returns it. */
export function sortConditions(conditions: Condition[]): Condition[] {
  return conditions.sort((a, b) => compareConditionTypes(a.type, b.type));
}
