// What a patch must send, decided from the snapshot and the modified object alone (no I/O): one merge
// patch for the main resource, one for /status, and the condition changes to merge three-way.
import type { Condition, KubeObject, MetaV1Condition } from '@metal3-ts/generated';
import { type ConditionChange, diffConditions, withOwnedState } from '../conditions/patch.ts';
import { createMergePatch, type JsonMap, mergePatches } from './diff.ts';

/** The metadata a controller may change; the rest (name, uid, resourceVersion, …) is the server's. */
const WRITABLE_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

interface WithStatus {
  status?: {
    conditions?: Condition[];
    v1beta2?: { conditions?: MetaV1Condition[] } & Record<string, unknown>;
  } & Record<string, unknown>;
}

export interface PatchPlan {
  /**
   * Writable metadata, spec and any other top-level field (a Secret's data, say); for kinds without
   * a status subresource also the status. Never the condition lists.
   */
  readonly main: JsonMap | undefined;
  /** The status without the condition lists; only for kinds with a status subresource. */
  readonly status: JsonMap | undefined;
  readonly conditions: readonly ConditionChange<Condition>[];
  readonly v1beta2Conditions: readonly ConditionChange<MetaV1Condition>[];
}

function mainView(obj: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, status: _s, ...rest } = obj as KubeObject & { status?: unknown };
  const meta: Record<string, unknown> = {};
  for (const field of WRITABLE_METADATA) meta[field] = metadata[field];
  return { ...rest, metadata: meta };
}

/** The status minus both condition lists (and a v1beta2 block left empty by their removal). */
function statusView(obj: WithStatus): Record<string, unknown> {
  const { conditions: _c, v1beta2, ...rest } = obj.status ?? {};
  if (v1beta2 !== undefined) {
    const { conditions: _c2, ...otherV1beta2 } = v1beta2;
    if (Object.keys(otherV1beta2).length > 0) return { ...rest, v1beta2: otherV1beta2 };
  }
  return rest;
}

export function planPatch<T extends KubeObject>(before: T, after: T, statusSubresource: boolean): PatchPlan {
  const b = before as T & WithStatus;
  const a = after as T & WithStatus;
  const main = createMergePatch(mainView(before), mainView(after));
  const statusDiff = createMergePatch(statusView(b), statusView(a));
  const status = statusDiff ? { status: statusDiff } : undefined;
  return {
    main: statusSubresource ? main : mergePatches(main, status),
    status: statusSubresource ? status : undefined,
    conditions: diffConditions(b.status?.conditions ?? [], a.status?.conditions ?? []),
    v1beta2Conditions: diffConditions(b.status?.v1beta2?.conditions ?? [], a.status?.v1beta2?.conditions ?? []),
  };
}

/**
 * The plan with the `owned` conditions of `desired` re-stated (withOwnedState) in each dialect whose
 * list has changes: a write that changes a condition brings every owned one to the desired state; a
 * write that changes none still leaves the condition lists alone.
 */
export function withOwnedConditions<T extends KubeObject>(plan: PatchPlan, desired: T, owned: ReadonlySet<string>): PatchPlan {
  if (owned.size === 0) return plan;
  const status = (desired as T & WithStatus).status;
  return {
    ...plan,
    conditions: plan.conditions.length > 0 ? withOwnedState(plan.conditions, status?.conditions ?? [], owned) : plan.conditions,
    v1beta2Conditions: plan.v1beta2Conditions.length > 0
      ? withOwnedState(plan.v1beta2Conditions, status?.v1beta2?.conditions ?? [], owned)
      : plan.v1beta2Conditions,
  };
}

export function isEmptyPlan(plan: PatchPlan): boolean {
  return !plan.main && !plan.status && plan.conditions.length === 0 && plan.v1beta2Conditions.length === 0;
}
