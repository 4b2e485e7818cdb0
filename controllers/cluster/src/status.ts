// The one place a Metal3Cluster's status is decided: deriveStatus turns the scope of a reconcile
// (the guard's decision, the owner Cluster, what the phases observed) into the object the final patch
// writes: the Paused condition, BaremetalInfrastructureReady and Ready in both dialects
// (status-conditions.ts), `ready`, the failure domains (C-7) and lastUpdated. Pure: no I/O, no clock
// (the scope carries `now`), table-tested per condition.
//
// A failed phase: a refusal (Forbidden, Invalid…) is shown on BaremetalInfrastructureReady naming
// verb and resource, so it waits for a person in plain sight; any other failure (a conflict that kept
// coming back, the apiserver unreachable) leaves the status as it is: the harness retries the pass,
// and the next one says what it finds. lastUpdated moves only when the status says something new
// (changed from upstream: a reconcile that finds nothing to change writes nothing).
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3ClusterStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { describeRefusal, refusalOf } from '@metal3-ts/shared/controller/refusal';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { copyFailureDomains } from './decisions/failure-domains.ts';
import { pausedCondition } from './decisions/paused.ts';
import type { Guard } from './guards.ts';
import type { ClusterOutcome, Observations } from './observations.ts';
import { setInfrastructureReady, setPaused, setReady } from './status-conditions.ts';

export interface StatusInput {
  /** The working copy after the phases: the object the final patch is computed against. */
  readonly m3c: Readonly<Metal3Cluster>;
  readonly decision: Guard;
  /** The owner Cluster (its spec.paused pauses the object, C-10). */
  readonly cluster: Readonly<Cluster> | undefined;
  readonly observed: Readonly<Observations>;
  readonly now: Date;
}

/** The Metal3Cluster as the final patch should leave it. */
export function deriveStatus(input: StatusInput): Metal3Cluster {
  const m3c = structuredClone(input.m3c) as Metal3Cluster;
  const { failure } = input.observed;
  const refusal = failure === undefined ? undefined : refusalOf(failure);
  if (failure !== undefined && !refusal) return m3c;
  setPaused(m3c, pausedCondition(input.cluster, m3c));
  // C-7: only a pass that works on a live, unpaused object.
  if (input.decision.kind !== 'Paused' && input.decision.kind !== 'Delete') copyFailureDomains(m3c);
  const outcome: ClusterOutcome = refusal ? { kind: 'RequestRefused', message: describeRefusal(refusal) } : input.observed.outcome ?? { kind: 'Unchanged' };
  setInfrastructureReady(m3c, outcome);
  setReady(m3c, outcome);
  if (outcome.kind === 'Ready') stampLastUpdated(input.m3c.status, m3c, input.now);
  return m3c;
}

/** Sets `status.lastUpdated` to `now` when the status differs from `before` in anything else. */
export function stampLastUpdated(before: Readonly<Metal3ClusterStatus> | undefined, m3c: Metal3Cluster, now: Date): void {
  const { lastUpdated: _before, ...was } = before ?? {};
  const { lastUpdated: _after, ...is } = m3c.status ?? {};
  if (deepEqual(was, is) && _after !== undefined) return;
  if (!m3c.status) return;
  m3c.status.lastUpdated = now.toISOString().replace(/\.\d+Z$/, 'Z');
}
