// Reading metav1 conditions (`status.v1beta2.conditions`).
import type { MetaV1Condition } from '@metal3-ts/generated';
import type { V1Beta2ConditionHolder } from '../types.ts';

export function getV1Beta2Condition(obj: V1Beta2ConditionHolder, type: string): MetaV1Condition | undefined {
  return obj.status?.v1beta2?.conditions?.find((c) => c.type === type);
}

export function hasV1Beta2Condition(obj: V1Beta2ConditionHolder, type: string): boolean {
  return getV1Beta2Condition(obj, type) !== undefined;
}

export function isV1Beta2True(obj: V1Beta2ConditionHolder, type: string): boolean {
  return getV1Beta2Condition(obj, type)?.status === 'True';
}

export function isV1Beta2False(obj: V1Beta2ConditionHolder, type: string): boolean {
  return getV1Beta2Condition(obj, type)?.status === 'False';
}

/** True when the condition is Unknown or missing. */
export function isV1Beta2Unknown(obj: V1Beta2ConditionHolder, type: string): boolean {
  const condition = getV1Beta2Condition(obj, type);
  return condition === undefined || condition.status === 'Unknown';
}
