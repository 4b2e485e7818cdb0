// One step of a MachineDeployment rollout, decided from the MachineSets' replica counts (CAPI's
// rolloutRolling / rolloutOnDelete, themselves Kubernetes Deployment's algorithm). Pure: the caller
// reads the sets and applies the new `spec.replicas` values.
//
// RollingUpdate, per step:
// 1. the new set grows while the total stays within `desired + maxSurge` (and never past desired);
//    a new set above desired shrinks to desired;
// 2. old sets shrink, oldest first: first their unavailable Machines, then available ones, but only
//    as far as keeping `desired - maxUnavailable` Machines available over all sets, and counting the
//    new set's not-yet-available Machines as unavailable.
// maxSurge rounds percentages up, maxUnavailable down; when both come out 0, maxUnavailable is 1.
// Defaults (CAPI's webhook): maxSurge 1, maxUnavailable 0.
//
// A deliberate difference from CAPI: an old set's available count is capped at its `spec.replicas`
// (what it will keep once it has acted on a scale-down), so a status that has not yet caught up with
// a scale-down cannot make the step take down more Machines than maxUnavailable allows.
//
// OnDelete: old sets follow the Machines a user deleted (spec drops to what exists) and give up any
// excess over desired, oldest first; the new set gets whatever is left of desired.
import type { IntOrString } from '@metal3-ts/generated';

export interface SetReplicas {
  readonly name: string;
  /** `spec.replicas`. */
  readonly replicas: number;
  /** `status.replicas`: Machines that exist. */
  readonly actualReplicas: number;
  /** `status.availableReplicas`. */
  readonly availableReplicas: number;
  /** creationTimestamp (RFC 3339), for oldest-first order. */
  readonly createdAt: string;
  /** Deployment revision: breaks ties between sets created in the same second. */
  readonly revision?: number;
}

export interface RolloutStrategy {
  readonly type?: 'RollingUpdate' | 'OnDelete' | undefined;
  readonly maxSurge?: IntOrString | undefined;
  readonly maxUnavailable?: IntOrString | undefined;
}

export interface RolloutInput {
  readonly desired: number;
  readonly strategy?: RolloutStrategy | undefined;
  /** The set of the current template; `replicas: 0` when it does not exist yet. */
  readonly newSet: SetReplicas;
  readonly oldSets: readonly SetReplicas[];
}

export interface RolloutStep {
  /** `spec.replicas` the new set should have. */
  readonly newReplicas: number;
  /** New `spec.replicas` of the old sets that change (absent: unchanged). */
  readonly oldReplicas: ReadonlyMap<string, number>;
}

/** maxSurge / maxUnavailable that are neither a whole number nor a percentage. */
export class InvalidRolloutStrategyError extends Error {
  override name = 'InvalidRolloutStrategyError';
}

export const DEFAULT_MAX_SURGE = 1;
export const DEFAULT_MAX_UNAVAILABLE = 0;

/** apimachinery's GetScaledValueFromIntOrPercent. */
export function scaledValue(value: IntOrString, total: number, roundUp: boolean): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) throw new InvalidRolloutStrategyError(`${value} must be a non-negative whole number`);
    return value;
  }
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new InvalidRolloutStrategyError(`invalid value "${value}": must be a whole number or a percentage`);
  const exact = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** CAPI's mdutil.ResolveFenceposts. @throws InvalidRolloutStrategyError */
export function resolveFenceposts(strategy: RolloutStrategy | undefined, desired: number): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = scaledValue(strategy?.maxSurge ?? DEFAULT_MAX_SURGE, desired, true);
  const maxUnavailable = scaledValue(strategy?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, desired, false);
  return maxSurge === 0 && maxUnavailable === 0 ? { maxSurge, maxUnavailable: 1 } : { maxSurge, maxUnavailable };
}

const oldestFirst = (a: SetReplicas, b: SetReplicas) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : (a.revision ?? 0) - (b.revision ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const sum = (values: Iterable<number>) => {
  let total = 0;
  for (const v of values) total += v;
  return total;
};

export function rolloutStep(input: RolloutInput): RolloutStep {
  return input.strategy?.type === 'OnDelete' ? onDeleteStep(input) : rollingUpdateStep(input);
}

export function rollingUpdateStep(input: RolloutInput): RolloutStep {
  const { desired } = input;
  const { maxSurge, maxUnavailable } = resolveFenceposts(input.strategy, desired);
  const old = [...input.oldSets].sort(oldestFirst).map((s) => ({ ...s }));
  const oldTotal = () => sum(old.map((s) => s.replicas));

  // 1. The new set.
  let newReplicas = input.newSet.replicas;
  if (newReplicas > desired) newReplicas = desired;
  else if (newReplicas < desired) {
    const current = newReplicas + oldTotal();
    const maxTotal = desired + maxSurge;
    if (current < maxTotal) newReplicas += Math.min(maxTotal - current, desired - newReplicas);
  }

  // 2. The old sets.
  const changed = new Map<string, number>();
  const scale = (set: { name: string; replicas: number }, to: number) => {
    set.replicas = to;
    changed.set(set.name, to);
  };
  if (oldTotal() > 0) {
    const minAvailable = desired - maxUnavailable;
    const newUnavailable = newReplicas - input.newSet.availableReplicas;
    const maxScaledDown = newReplicas + oldTotal() - minAvailable - newUnavailable;
    if (maxScaledDown > 0) {
      // Unavailable Machines of old sets go first: they block the rollout and serve nobody.
      let cleaned = 0;
      for (const set of old) {
        if (cleaned >= maxScaledDown) break;
        const unhealthy = set.replicas - Math.min(set.availableReplicas, set.replicas);
        if (set.replicas === 0 || unhealthy <= 0) continue;
        const down = Math.min(maxScaledDown - cleaned, unhealthy);
        scale(set, set.replicas - down);
        cleaned += down;
      }
      const available = Math.min(input.newSet.availableReplicas, newReplicas) + sum(old.map((s) => Math.min(s.availableReplicas, s.replicas)));
      let toScaleDown = available - minAvailable;
      for (const set of old) {
        if (toScaleDown <= 0) break;
        if (set.replicas === 0) continue;
        const down = Math.min(set.replicas, toScaleDown);
        scale(set, set.replicas - down);
        toScaleDown -= down;
      }
    }
  }
  return { newReplicas, oldReplicas: changed };
}

export function onDeleteStep(input: RolloutInput): RolloutStep {
  const { desired } = input;
  const old = [...input.oldSets].sort(oldestFirst).map((s) => ({ ...s }));
  const changed = new Map<string, number>();
  for (const set of old) {
    // Follow what the user deleted: never recreate a Machine of an old revision.
    if (set.actualReplicas < set.replicas) {
      set.replicas = set.actualReplicas;
      changed.set(set.name, set.replicas);
    }
  }
  let excess = sum(old.map((s) => s.replicas)) + input.newSet.replicas - desired;
  for (const set of old) {
    if (excess <= 0) break;
    const down = Math.min(set.replicas, excess);
    if (down === 0) continue;
    set.replicas -= down;
    excess -= down;
    changed.set(set.name, set.replicas);
  }
  const newReplicas = Math.max(0, desired - sum(old.map((s) => s.replicas)));
  return { newReplicas, oldReplicas: changed };
}
