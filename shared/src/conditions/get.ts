// Reading v1beta1 conditions (`status.conditions`). A missing condition is neither True nor False:
// it is Unknown, as in Cluster API.
import type { Condition } from '@metal3-ts/generated';
import type { V1Beta1ConditionHolder } from './types.ts';

export function getCondition(obj: V1Beta1ConditionHolder, type: string): Condition | undefined {
  return obj.status?.conditions?.find((c) => c.type === type);
}

export function hasCondition(obj: V1Beta1ConditionHolder, type: string): boolean {
  return getCondition(obj, type) !== undefined;
}

export function isTrue(obj: V1Beta1ConditionHolder, type: string): boolean {
  return getCondition(obj, type)?.status === 'True';
}

export function isFalse(obj: V1Beta1ConditionHolder, type: string): boolean {
  return getCondition(obj, type)?.status === 'False';
}

/** True when the condition is Unknown or missing. */
export function isUnknown(obj: V1Beta1ConditionHolder, type: string): boolean {
  const condition = getCondition(obj, type);
  return condition === undefined || condition.status === 'Unknown';
}

/** The reason, or '' when the condition is missing or has none. */
export function getReason(obj: V1Beta1ConditionHolder, type: string): string {
  return getCondition(obj, type)?.reason ?? '';
}

/** The severity, or '' when the condition is missing or has none. */
export function getSeverity(obj: V1Beta1ConditionHolder, type: string): string {
  return getCondition(obj, type)?.severity ?? '';
}
