// Writing v1beta1 conditions (`status.conditions`) in memory. The deferred patch persists them.
import type { Condition } from '@metal3-ts/generated';
import { sortConditions } from './sort.ts';
import { type ConditionInput, type ConditionSeverity, conditionTimestamp, type V1Beta1ConditionHolder } from './types.ts';

/**
 * Adds or updates a condition and keeps the list sorted (Ready first, then by type).
 *
 * lastTransitionTime moves when the condition's state (status, severity, reason or message) changes,
 * as in Cluster API's v1beta1 `Set`; re-stating the same facts keeps the old time, so a reconcile
 * that changes nothing leaves nothing to patch.
 * Empty reason, message and severity are left out (the CRD schemas reject empty strings there).
 */
export function setCondition(obj: V1Beta1ConditionHolder, input: ConditionInput, now: () => string = conditionTimestamp): void {
  const status = (obj.status ??= {});
  const conditions = (status.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === input.type);
  const existing = index >= 0 ? conditions[index] : undefined;
  const lastTransitionTime = existing === undefined ? (input.lastTransitionTime ?? now()) : sameState(existing, input) ? existing.lastTransitionTime : now();
  const condition: Condition = { type: input.type, status: input.status, lastTransitionTime };
  if (input.severity) condition.severity = input.severity;
  if (input.reason) condition.reason = input.reason;
  if (input.message) condition.message = input.message;
  if (existing === undefined) conditions.push(condition);
  else conditions[index] = condition;
  sortConditions(conditions);
}

function sameState(a: Condition, b: ConditionInput): boolean {
  return a.status === b.status && (a.severity ?? '') === (b.severity ?? '') && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

/** Sets the condition True; True conditions carry no reason, severity or message. */
export function markTrue(obj: V1Beta1ConditionHolder, type: string): void {
  setCondition(obj, { type, status: 'True' });
}

/** Sets the condition False with a reason and a severity saying how bad it is. */
export function markFalse(obj: V1Beta1ConditionHolder, type: string, reason: string, severity: ConditionSeverity, message?: string): void {
  setCondition(obj, { type, status: 'False', reason, severity, ...(message ? { message } : {}) });
}

export function markUnknown(obj: V1Beta1ConditionHolder, type: string, reason: string, message?: string): void {
  setCondition(obj, { type, status: 'Unknown', reason, ...(message ? { message } : {}) });
}
