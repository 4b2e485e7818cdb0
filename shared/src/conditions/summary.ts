// The v1beta1 Ready summary CAPM3 computes right before its deferred patch (research 0.5): the worst
// in-scope condition decides Ready.
import type { Condition } from '@metal3-ts/generated';
import { setCondition } from './set.ts';
import { type ConditionInput, type ConditionSeverity, type ConditionStatus, READY_CONDITION, type V1Beta1ConditionHolder } from './types.ts';

const TRUE_RANK = 5;

/**
 * Lower is worse: False/Error < False/Warning < False/Info < False without severity < Unknown < True.
 *
 * Note: Cluster API's own v1beta1 merge ranks True above Unknown (a True and an Unknown input give
 * Ready True); research 0.5 pins Unknown as worse than True and this follows the research.
 */
function rank(condition: Condition): number {
  if (condition.status === 'True') return TRUE_RANK;
  if (condition.status !== 'False') return 4;
  switch (condition.severity) {
    case 'Error':
      return 0;
    case 'Warning':
      return 1;
    case 'Info':
      return 2;
    default:
      return 3;
  }
}

/**
 * The Ready condition summarising `types`, or undefined when none of them exists (Ready is then left
 * as it is). Missing types are ignored. All True gives Ready True without reason; otherwise Ready takes
 * the status and severity of the worst group and the reason and message of the group's first
 * condition in the order of `types`.
 */
export function summarizeConditions(conditions: readonly Condition[], types: readonly string[]): ConditionInput | undefined {
  const inScope = types
    .filter((t) => t !== READY_CONDITION)
    .map((t) => conditions.find((c) => c.type === t))
    .filter((c): c is Condition => c !== undefined);
  if (inScope.length === 0) return undefined;
  const worst = Math.min(...inScope.map(rank));
  if (worst === TRUE_RANK) return { type: READY_CONDITION, status: 'True' };
  const first = inScope.find((c) => rank(c) === worst)!;
  const status: ConditionStatus = first.status === 'False' ? 'False' : 'Unknown';
  return {
    type: READY_CONDITION,
    status,
    ...(status === 'False' && first.severity ? { severity: first.severity as ConditionSeverity } : {}),
    ...(first.reason ? { reason: first.reason } : {}),
    ...(first.message ? { message: first.message } : {}),
  };
}

/** Recomputes v1beta1 Ready from `types` on the object (no change when none of them exists). */
export function setReadySummary(obj: V1Beta1ConditionHolder, types: readonly string[]): void {
  const ready = summarizeConditions(obj.status?.conditions ?? [], types);
  if (ready) setCondition(obj, ready);
}
