// Writing metav1 conditions (`status.v1beta2.conditions`) in memory, with metav1's
// SetStatusCondition rule: lastTransitionTime moves only when the status changes.
import type { MetaV1Condition } from '@metal3-ts/generated';
import { conditionTimestamp, type V1Beta2ConditionHolder, type V1Beta2ConditionInput } from '../types.ts';
import { sortV1Beta2Conditions } from './sort.ts';

/**
 * Adds or updates a metav1 condition and keeps the list sorted (Available, Ready, then by type).
 * observedGeneration defaults to the object's metadata.generation, as Cluster API's setter does.
 */
export function setV1Beta2Condition(obj: V1Beta2ConditionHolder, input: V1Beta2ConditionInput, now: () => string = conditionTimestamp): void {
  const status = (obj.status ??= {});
  const v1beta2 = (status.v1beta2 ??= {});
  const conditions = (v1beta2.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === input.type);
  const existing = index >= 0 ? conditions[index] : undefined;
  const lastTransitionTime = existing === undefined || existing.status !== input.status ? (input.lastTransitionTime ?? now()) : existing.lastTransitionTime;
  const condition: MetaV1Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message ?? '',
    lastTransitionTime,
  };
  const generation = input.observedGeneration ?? obj.metadata?.generation;
  if (generation !== undefined) condition.observedGeneration = generation;
  if (existing === undefined) conditions.push(condition);
  else conditions[index] = condition;
  sortV1Beta2Conditions(conditions);
}

/** Removes the condition; returns whether it was there. An emptied list is dropped. */
export function deleteV1Beta2Condition(obj: V1Beta2ConditionHolder, type: string): boolean {
  const v1beta2 = obj.status?.v1beta2;
  const conditions = v1beta2?.conditions;
  if (!v1beta2 || !conditions) return false;
  const index = conditions.findIndex((c) => c.type === type);
  if (index < 0) return false;
  conditions.splice(index, 1);
  if (conditions.length === 0) delete v1beta2.conditions;
  return true;
}
