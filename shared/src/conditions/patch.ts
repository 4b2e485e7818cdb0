// Three-way merge of condition lists, as Cluster API's condition patch: a writer applies only the
// conditions it changed since its snapshot on top of the server's current list, so several
// controllers can each own some conditions of one object without clobbering each other.
import type { Condition, MetaV1Condition } from '@metal3-ts/generated';
import { sortConditions } from './sort.ts';
import { sortV1Beta2Conditions } from './v1beta2/sort.ts';

interface Typed {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime: string;
}

/** One condition this writer added (no before), removed (no after) or changed. */
export interface ConditionChange<C extends Typed> {
  readonly type: string;
  readonly before?: C;
  readonly after?: C;
}

/** What differs between the two condition dialects for merging. */
export interface ConditionDialect<C extends Typed> {
  /** Same observable state: a transition time alone is not a change of state. */
  sameState(a: C, b: C): boolean;
  sort(conditions: C[]): C[];
}

export const v1beta1Dialect: ConditionDialect<Condition> = {
  sameState: (a, b) =>
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.severity ?? '') === (b.severity ?? '') &&
    (a.message ?? '') === (b.message ?? ''),
  sort: sortConditions,
};

export const v1beta2Dialect: ConditionDialect<MetaV1Condition> = {
  sameState: (a, b) =>
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    (a.message ?? '') === (b.message ?? '') &&
    a.observedGeneration === b.observedGeneration,
  sort: sortV1Beta2Conditions,
};

/** Another writer changed a condition this writer also changed, and this writer does not own it. */
export class ConditionConflictError extends Error {
  override name = 'ConditionConflictError';
  readonly types: readonly string[];

  constructor(types: readonly string[]) {
    super(`conditions changed by another writer since the snapshot: ${types.join(', ')}`);
    this.types = types;
  }
}

function sameCondition(a: object, b: object): boolean {
  const ea = Object.entries(a).filter(([, v]) => v !== undefined);
  const eb = new Map(Object.entries(b).filter(([, v]) => v !== undefined));
  return ea.length === eb.size && ea.every(([k, v]) => eb.get(k) === v);
}

/** The conditions added, removed or changed (in any field) from `before` to `after`, by type. */
export function diffConditions<C extends Typed>(before: readonly C[], after: readonly C[]): ConditionChange<C>[] {
  const changes: ConditionChange<C>[] = [];
  for (const a of after) {
    const b = before.find((c) => c.type === a.type);
    if (b === undefined) changes.push({ type: a.type, after: a });
    else if (!sameCondition(a, b)) changes.push({ type: a.type, before: b, after: a });
  }
  for (const b of before) {
    if (!after.some((c) => c.type === b.type)) changes.push({ type: b.type, before: b });
  }
  return changes;
}

/**
 * `changes` plus the owned conditions of `desired` that did not change since the snapshot, each as a
 * change to its own state, so the merge brings the server's copy to it as well. Only what changed is
 * not enough for the conditions a writer owns: a summary among them (Ready) is computed from the
 * working copy's inputs, and a server list that lost or moved one of those inputs since the snapshot
 * (a stale cache, another writer's whole-list write) would get the new summary without the inputs it
 * was computed from: Ready True with AssociateBMH absent. Owned conditions `desired` lacks are left
 * alone (a writer removes only what it removed).
 */
export function withOwnedState<C extends Typed>(
  changes: readonly ConditionChange<C>[],
  desired: readonly C[],
  owned: ReadonlySet<string>,
): ConditionChange<C>[] {
  const changed = new Set(changes.map((c) => c.type));
  const unchanged = desired.filter((c) => owned.has(c.type) && !changed.has(c.type)).map((c) => ({ type: c.type, before: c, after: c }));
  return [...changes, ...unchanged];
}

/**
 * Applies `changes` on top of `latest` (the server's list) and returns the merged, sorted list.
 *
 * A change conflicts when the server's condition has moved away from both this writer's before and
 * after state (or was removed under a change, or appeared differently under an add). Conditions in
 * `owned` never conflict: this writer's state wins. Other writers' conditions are kept as they are.
 *
 * @throws ConditionConflictError naming every conflicting type.
 */
export function applyConditionChanges<C extends Typed>(
  latest: readonly C[],
  changes: readonly ConditionChange<C>[],
  dialect: ConditionDialect<C>,
  owned: ReadonlySet<string> = new Set(),
): C[] {
  const result = [...latest];
  const conflicts: string[] = [];
  const indexOf = (type: string) => result.findIndex((c) => c.type === type);
  for (const change of changes) {
    const at = indexOf(change.type);
    const current = at >= 0 ? result[at] : undefined;
    const ours = owned.has(change.type);
    if (change.after === undefined) {
      if (current === undefined) continue;
      if (!ours && change.before && !dialect.sameState(current, change.before)) conflicts.push(change.type);
      else result.splice(at, 1);
      continue;
    }
    if (!ours && current !== undefined && !dialect.sameState(current, change.after)) {
      // An add over someone else's condition, or a change where the server moved on from our before.
      if (change.before === undefined || !dialect.sameState(current, change.before)) {
        conflicts.push(change.type);
        continue;
      }
    }
    if (!ours && current === undefined && change.before !== undefined) {
      conflicts.push(change.type);
      continue;
    }
    // An unchanged status on the server keeps the server's transition time.
    const merged = current !== undefined && current.status === change.after.status
      ? { ...change.after, lastTransitionTime: current.lastTransitionTime }
      : change.after;
    if (at >= 0) result[at] = merged;
    else result.push(merged);
  }
  if (conflicts.length > 0) throw new ConditionConflictError(conflicts);
  return dialect.sort(result);
}
