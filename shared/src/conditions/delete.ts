// Removing v1beta1 conditions. An emptied list is dropped so the deferred patch deletes the field
// instead of writing `conditions: []`.
import type { V1Beta1ConditionHolder } from './types.ts';

/** Removes the condition; returns whether it was there. */
export function deleteCondition(obj: V1Beta1ConditionHolder, type: string): boolean {
  const conditions = obj.status?.conditions;
  if (!conditions) return false;
  const index = conditions.findIndex((c) => c.type === type);
  if (index < 0) return false;
  conditions.splice(index, 1);
  if (conditions.length === 0 && obj.status) delete obj.status.conditions;
  return true;
}
