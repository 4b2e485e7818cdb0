// How both condition dialects show what a Metal3Cluster reconcile found (research §0.3, C-8, C-10,
// C-11, C-13, C-14, C-17): one setter per condition, used by deriveStatus (status.ts) and nothing
// else, in the order deriveStatus applies them (Paused, BaremetalInfrastructureReady, then Ready,
// which summarises it).
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
//   and resource in the message; upstream only logs it.
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import type { V1Beta2ConditionInput } from '@metal3-ts/shared/conditions/types';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { setV1Beta2ReadySummary } from '@metal3-ts/shared/conditions/v1beta2/summary';
import { BAREMETAL_INFRASTRUCTURE_READY, READY, READY_SUMMARY_INPUTS, V1Beta1Reason, V1Beta2Reason } from './names.ts';
import type { ClusterOutcome } from './observations.ts';

/** C-10: the v1beta2 Paused condition (decisions/paused.ts computes it). */
export function setPaused(m3c: Metal3Cluster, paused: V1Beta2ConditionInput): void {
  setV1Beta2Condition(m3c, paused);
}

/** BaremetalInfrastructureReady in both dialects, with `ready` and the failure fields it goes with. */
export function setInfrastructureReady(m3c: Metal3Cluster, outcome: ClusterOutcome): void {
  const status = (m3c.status ??= {});
  const falseWith = (v1: string, v2: string, message: string) => {
    markFalse(m3c, BAREMETAL_INFRASTRUCTURE_READY, v1, 'Error', message);
    setV1Beta2Condition(m3c, { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'False', reason: v2, message });
  };
  switch (outcome.kind) {
    case 'Ready':
      status.ready = true;
      delete status.failureReason;
      delete status.failureMessage;
      markTrue(m3c, BAREMETAL_INFRASTRUCTURE_READY);
      setV1Beta2Condition(m3c, { type: BAREMETAL_INFRASTRUCTURE_READY, status: 'True', reason: V1Beta2Reason.Ready });
      return;
    case 'EndpointInvalid':
      status.ready = false;
      return falseWith(V1Beta1Reason.ControlPlaneEndpointFailed, V1Beta2Reason.ControlPlaneEndpointFailed, outcome.message);
    case 'OwnerClusterMissing':
      // v1beta1 only: the v1beta2 dialect says it on Ready (setReady), as upstream does.
      markFalse(m3c, BAREMETAL_INFRASTRUCTURE_READY, V1Beta1Reason.InternalFailureOccured, 'Error', outcome.message);
      return;
    case 'RequestRefused':
      return falseWith(V1Beta1Reason.InternalFailureOccured, V1Beta2Reason.InternalError, outcome.message);
    case 'Deleting':
    case 'Unchanged':
      return;
  }
}

/**
 * Ready in both dialects (C-17): the v1beta1 summary of BaremetalInfrastructureReady; in v1beta2 the
 * summary too, except while the owner is missing or the object is deleting, which Ready says itself.
 */
export function setReady(m3c: Metal3Cluster, outcome: ClusterOutcome): void {
  setReadySummary(m3c, READY_SUMMARY_INPUTS);
  const explicit = outcome.kind === 'OwnerClusterMissing'
    ? V1Beta2Reason.FailedToGetOwnerCluster
    : outcome.kind === 'Deleting'
    ? V1Beta2Reason.Deleting
    : undefined;
  if (explicit && 'message' in outcome) setV1Beta2Condition(m3c, { type: READY, status: 'False', reason: explicit, message: outcome.message });
  else setV1Beta2ReadySummary(m3c, READY_SUMMARY_INPUTS);
}
