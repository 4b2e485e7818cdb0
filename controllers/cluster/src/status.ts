// From one decision about the Metal3Cluster to everything its status says: `ready`, the failure
// fields, and both condition dialects (research §0.3, C-8, C-11, C-13, C-14, C-17).
//
// Changed from upstream (docs/compatibility.md):
// - an invalid endpoint sets BaremetalInfrastructureReady False/ControlPlaneEndpointFailed (the
//   branch upstream meant to reach) and `ready: false`, instead of failureReason/failureMessage and an
//   error retried forever; failureReason/failureMessage are terminal in the Cluster API contract (the
//   Cluster copies them and never recovers), and a wrong endpoint is fixed by an edit (C-13, E-14);
// - failureReason/failureMessage left from an earlier failure are cleared once the object is ready
//   (E-14); this controller never sets them;
// - the v1beta2 Ready reasons FailedToGetOwnerCluster and Deleting stay visible instead of being
//   replaced by the summary in the same patch (E-3);
// - a write the apiserver refuses (a verb missing from the RBAC, a value the schema refuses) sets
//   BaremetalInfrastructureReady False (InternalFailureOccured / v1beta2 InternalError) with the verb
//   and resource in the message; upstream only logs it;
// - lastUpdated moves only when the status says something new, so a reconcile that finds nothing to
//   change writes nothing.
import type { Metal3Cluster, Metal3ClusterStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { setV1Beta2ReadySummary } from '@metal3-ts/shared/conditions/v1beta2/summary';
import type { V1Beta2ConditionInput } from '@metal3-ts/shared/conditions/types';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { copyFailureDomains } from './decisions/failure-domains.ts';
import { BAREMETAL_INFRASTRUCTURE_READY, READY, READY_SUMMARY_INPUTS, V1Beta1Reason, V1Beta2Reason } from './names.ts';

/** What the reconcile found; one of these decides the whole status. */
export type ClusterOutcome =
  /** C-14: owner found, endpoint valid. */
  | { readonly kind: 'Ready' }
  /** C-13: `message` names the field(s). */
  | { readonly kind: 'EndpointInvalid'; readonly message: string }
  /** C-8. */
  | { readonly kind: 'OwnerClusterMissing'; readonly message: string }
  /** A write the apiserver refused (RBAC, validation); `message` names verb and resource. Not upstream. */
  | { readonly kind: 'RequestRefused'; readonly message: string }
  /** C-11, still waiting for machines. */
  | { readonly kind: 'Deleting'; readonly message: string }
  /** C-9, C-10: nothing but the summaries (and the Paused condition, set elsewhere). */
  | { readonly kind: 'Unchanged' };

/** What else a pass observed that the status reports, besides its outcome. */
export interface StatusInputs {
  /** C-10: the v1beta2 Paused condition (every pass but a refused finalizer removal). */
  readonly paused?: V1Beta2ConditionInput;
  /** C-7: copy spec.failureDomains to the status (the passes that work on a live, unpaused object). */
  readonly failureDomains?: boolean;
  /** When Ready: stamp lastUpdated with `now` if the status says something new since `before`. */
  readonly stamp?: { readonly before: Readonly<Metal3ClusterStatus> | undefined; readonly now: Date };
}

/**
 * The status of `m3c` after a pass that found `outcome` (and `inputs`), in memory, summaries
 * included: the reconcile's one status decision, pure, and the only place its status is set.
 */
export function deriveStatus(m3c: Metal3Cluster, outcome: ClusterOutcome, inputs: StatusInputs = {}): void {
  if (inputs.paused) setV1Beta2Condition(m3c, inputs.paused);
  if (inputs.failureDomains) copyFailureDomains(m3c);
  const status = (m3c.status ??= {});
  let explicitReady: { reason: string; message: string } | undefined;
  switch (outcome.kind) {
    case 'Ready':
      status.ready = true;
      delete status.failureReason;
      delete status.failureMessage;
      markTrue(m3c, BAREMETAL_INFRASTRUCTURE_READY);
      setV1Beta2Condition(m3c, { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'True', reason: V1Beta2Reason.Ready });
      break;
    case 'EndpointInvalid':
      status.ready = false;
      markFalse(m3c, BAREMETAL_INFRASTRUCTURE_READY, V1Beta1Reason.ControlPlaneEndpointFailed, 'Error', outcome.message);
      setV1Beta2Condition(m3c, {
        type: BAREMETAL_INFRASTRUCTURE_READY,
        status: 'False',
        reason: V1Beta2Reason.ControlPlaneEndpointFailed,
        message: outcome.message,
      });
      break;
    case 'OwnerClusterMissing':
      markFalse(m3c, BAREMETAL_INFRASTRUCTURE_READY, V1Beta1Reason.InternalFailureOccured, 'Error', outcome.message);
      explicitReady = { reason: V1Beta2Reason.FailedToGetOwnerCluster, message: outcome.message };
      break;
    case 'RequestRefused':
      markFalse(m3c, BAREMETAL_INFRASTRUCTURE_READY, V1Beta1Reason.InternalFailureOccured, 'Error', outcome.message);
      setV1Beta2Condition(m3c, { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'False', reason: V1Beta2Reason.InternalError, message: outcome.message });
      break;
    case 'Deleting':
      explicitReady = { reason: V1Beta2Reason.Deleting, message: outcome.message };
      break;
    case 'Unchanged':
      break;
  }
  setReadySummary(m3c, READY_SUMMARY_INPUTS);
  if (explicitReady) setV1Beta2Condition(m3c, { type: READY, status: 'False', ...explicitReady });
  else setV1Beta2ReadySummary(m3c, READY_SUMMARY_INPUTS);
  if (outcome.kind === 'Ready' && inputs.stamp) stampLastUpdated(inputs.stamp.before, m3c, inputs.stamp.now);
}

/** Sets `status.lastUpdated` to `now` when the status differs from `before` in anything else. */
export function stampLastUpdated(before: Readonly<Metal3ClusterStatus> | undefined, m3c: Metal3Cluster, now: Date): void {
  const { lastUpdated: _before, ...was } = before ?? {};
  const { lastUpdated: _after, ...is } = m3c.status ?? {};
  if (deepEqual(was, is) && _after !== undefined) return;
  if (!m3c.status) return;
  m3c.status.lastUpdated = now.toISOString().replace(/\.\d+Z$/, 'Z');
}
