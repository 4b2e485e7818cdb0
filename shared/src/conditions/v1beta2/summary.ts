// The v1beta2 Ready summary CAPM3 computes right before its deferred patch (research 0.5). Unlike
// the v1beta1 summary, a missing input counts: it is Unknown until its owner reports it.
import type { MetaV1Condition } from '@metal3-ts/generated';
import { type ConditionStatus, READY_CONDITION, type V1Beta2ConditionHolder, type V1Beta2ConditionInput } from '../types.ts';
import { setV1Beta2Condition } from './set.ts';

export const NOT_YET_REPORTED_REASON = 'NotYetReported';
export const READY_REASON = 'Ready';
export const NOT_READY_REASON = 'NotReady';
export const READY_UNKNOWN_REASON = 'ReadyUnknown';

type Input = Pick<MetaV1Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * Ready over `types`: any False gives False/NotReady, else any Unknown (missing counts as Unknown,
 * reason NotYetReported) gives Unknown/ReadyUnknown, else True/Ready. The message lists the inputs
 * that are not True, False ones first, one `* Type: message` line each.
 */
export function summarizeV1Beta2Conditions(conditions: readonly MetaV1Condition[], types: readonly string[]): V1Beta2ConditionInput {
  const inputs: Input[] = types
    .filter((t) => t !== READY_CONDITION)
    .map(
      (type) =>
        conditions.find((c) => c.type === type) ?? {
          type,
          status: 'Unknown',
          reason: NOT_YET_REPORTED_REASON,
          message: 'Condition not yet reported',
        },
    );
  const failing = inputs.filter((c) => c.status === 'False');
  const unknown = inputs.filter((c) => c.status !== 'True' && c.status !== 'False');
  const status: ConditionStatus = failing.length > 0 ? 'False' : unknown.length > 0 ? 'Unknown' : 'True';
  const reason = status === 'False' ? NOT_READY_REASON : status === 'Unknown' ? READY_UNKNOWN_REASON : READY_REASON;
  const message = [...failing, ...unknown].map((c) => `* ${c.type}: ${c.message || c.reason}`).join('\n');
  return { type: READY_CONDITION, status, reason, message };
}

/** Recomputes v1beta2 Ready from `types` on the object. */
export function setV1Beta2ReadySummary(obj: V1Beta2ConditionHolder, types: readonly string[]): void {
  setV1Beta2Condition(obj, summarizeV1Beta2Conditions(obj.status?.v1beta2?.conditions ?? [], types));
}
