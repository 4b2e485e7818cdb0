// Shared vocabulary of the two condition dialects CAPM3 objects carry side by side: Cluster API
// v1beta1 conditions in `status.conditions` (with a severity for False) and metav1 conditions in
// `status.v1beta2.conditions` (reason required, observedGeneration).
import type { Condition, MetaV1Condition } from '@metal3-ts/generated';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** How bad a False v1beta1 condition is; '' for True and Unknown conditions. */
export type ConditionSeverity = 'Error' | 'Warning' | 'Info' | '';

export const ConditionSeverity = {
  Error: 'Error',
  Warning: 'Warning',
  Info: 'Info',
  None: '',
} as const satisfies Record<string, ConditionSeverity>;

/** The summary condition every CAPI-style object reports first. */
export const READY_CONDITION = 'Ready';

/** Any object with v1beta1 conditions at `status.conditions` (Metal3Machine, CAPI Machine, …). */
export interface V1Beta1ConditionHolder {
  status?: { conditions?: Condition[] };
}

/** Any object with metav1 conditions at `status.v1beta2.conditions`. */
export interface V1Beta2ConditionHolder {
  metadata?: { generation?: number };
  status?: { v1beta2?: { conditions?: MetaV1Condition[] } };
}

/** What a caller states about a v1beta1 condition; the setter owns lastTransitionTime. */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  severity?: ConditionSeverity;
  reason?: string;
  message?: string;
  /** Used only when the condition is new; otherwise the setter decides. */
  lastTransitionTime?: string;
}

/** What a caller states about a metav1 condition. */
export interface V1Beta2ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  /** Defaults to the object's metadata.generation. */
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/**
 * Now as the apiserver writes `metav1.Time`: RFC 3339 in UTC with whole seconds. Sub-second digits
 * would make two writes of the same instant look different after a server round trip.
 */
export function conditionTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
