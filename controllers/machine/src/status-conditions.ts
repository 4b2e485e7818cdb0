// How both condition dialects show each finding of a Metal3Machine reconcile (research §0.3, §1.2):
// one setter per topic of observations.ts, used by deriveStatus (status.ts) and nothing else, in
// the order deriveStatus applies them.
//
// Changed from upstream (docs/compatibility.md):
// - E-4: after un-pausing, v1beta2 Paused is False/NotPaused (upstream writes True/NotPaused);
// - E-5: KubernetesNodeReady turns True once the machine is ready (upstream never sets it True, so a
//   transient failure left the v1beta1 Ready summary False for the rest of the object's life);
// - waiting for a host (H-11, H-10) keeps upstream's AssociateBMHFailed reasons but with severity
//   Info and a message that says what is awaited: it is a wait, not an error.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { markFalse, markTrue } from '@metal3-ts/shared/conditions/set';
import type { ConditionSeverity } from '@metal3-ts/shared/conditions/types';
import { isV1Beta2True } from '@metal3-ts/shared/conditions/v1beta2/get';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import {
  ASSOCIATE_BARE_METAL_HOST,
  ASSOCIATE_BMH,
  ASSOCIATE_METADATA,
  KUBERNETES_NODE_READY,
  METAL3_DATA_READY,
  PAUSED,
  V1Beta1Reason,
  V1Beta2Reason,
} from './names.ts';
import type { AssociateWait, NodeProblemStep, PauseState } from './observations.ts';

const WAITS: Record<AssociateWait['kind'], { v1: string; v2: string; message: string }> = {
  OwnerRef: {
    v1: V1Beta1Reason.WaitingForM3MachineOwnerRef,
    v2: V1Beta2Reason.WaitingForMetal3MachineOwnerRef,
    message: 'Waiting for Machine Controller to set OwnerRef on Metal3Machine',
  },
  Machine: { v1: V1Beta1Reason.WaitingForM3MachineOwnerRef, v2: V1Beta2Reason.WaitingForMetal3MachineOwnerRef, message: '' },
  Cluster: { v1: V1Beta1Reason.WaitingForClusterInfrastructure, v2: V1Beta2Reason.WaitingForClusterInfrastructureReady, message: '' },
  Infrastructure: {
    v1: V1Beta1Reason.WaitingForClusterInfrastructure,
    v2: V1Beta2Reason.WaitingForClusterInfrastructureReady,
    message: 'Waiting for Metal3Cluster Controller to create cluster infrastructure',
  },
  Metal3Cluster: {
    v1: V1Beta1Reason.WaitingforMetal3Cluster,
    v2: V1Beta2Reason.WaitingforMetal3Cluster,
    message: 'Waiting for Metal3Cluster Controller to create the Metal3Cluster',
  },
  Bootstrap: {
    v1: V1Beta1Reason.WaitingForBootstrapReady,
    v2: V1Beta2Reason.WaitingForBootstrapData,
    message: 'Waiting for bootstrap data to be ready before proceeding',
  },
  Host: { v1: V1Beta1Reason.AssociateBMHFailed, v2: V1Beta2Reason.AssociateBareMetalHostFailed, message: '' },
};

export function setAssociateWaiting(m3m: Metal3Machine, wait: AssociateWait): void {
  // An owner Machine not yet in our cache, right after Cluster API set the owner reference, is the
  // owner-reference wait seen a moment later: it stays shown as that wait rather than costing a
  // status write for a new message (with real Cluster API v1.13, 76 of 100 machines paid that write:
  // its Machines reach our v1beta1 watch through conversion). A Machine missing from the start
  // still gets its own message.
  if (wait.kind === 'Machine' && getCondition(m3m, ASSOCIATE_BMH)?.reason === WAITS.OwnerRef.v1) return;
  const { v1, v2, message } = WAITS[wait.kind];
  const text = 'message' in wait ? wait.message : message;
  // M-9 writes the v1beta1 condition with no message; every other wait repeats the v1beta2 text.
  markFalse(m3m, ASSOCIATE_BMH, v1, 'Info', wait.kind === 'OwnerRef' ? '' : text);
  setV1Beta2Condition(m3m, { type: ASSOCIATE_BARE_METAL_HOST, status: 'False', reason: v2, message: text });
}

/** M-21: association failed with `message`. */
export function setAssociateFailed(m3m: Metal3Machine, message: string): void {
  markFalse(m3m, ASSOCIATE_BMH, V1Beta1Reason.AssociateBMHFailed, 'Error', message);
  setV1Beta2Condition(m3m, { type: ASSOCIATE_BARE_METAL_HOST, status: 'False', reason: V1Beta2Reason.AssociateBareMetalHostFailed, message });
}

/** M-27, M-31. */
export function setAssociated(m3m: Metal3Machine): void {
  markTrue(m3m, ASSOCIATE_BMH);
  setV1Beta2Condition(m3m, { type: ASSOCIATE_BARE_METAL_HOST, status: 'True', reason: V1Beta2Reason.AssociateBareMetalHostSuccess });
}

/** M-28 success. */
export function setMetadataAssociated(m3m: Metal3Machine): void {
  setV1Beta2Condition(m3m, { type: ASSOCIATE_METADATA, status: 'True', reason: V1Beta2Reason.AssociateMetaDataSuccess });
}

/** M-28 failure, X-1, X-2, X-3: the node/metadata conditions say what went wrong (or that we are deleting). */
export function setNodeProblem(m3m: Metal3Machine, step: NodeProblemStep, message = ''): void {
  const v1: Record<NodeProblemStep, [string, ConditionSeverity]> = {
    AssociateM3MetaDataFailed: [V1Beta1Reason.AssociateM3MetaDataFailed, 'Warning'],
    Deleting: [V1Beta1Reason.Deleting, 'Info'],
    DisassociateM3MetaDataFailed: [V1Beta1Reason.DisassociateM3MetaDataFailed, 'Warning'],
    DeletionFailed: [V1Beta1Reason.DeletionFailed, 'Warning'],
  };
  const v2: Record<NodeProblemStep, string> = {
    AssociateM3MetaDataFailed: V1Beta2Reason.AssociateMetaDataFailed,
    Deleting: V1Beta2Reason.Deleting,
    DisassociateM3MetaDataFailed: V1Beta2Reason.DisassociateM3MetaDataFailed,
    DeletionFailed: V1Beta2Reason.DeletionFailed,
  };
  const [reason, severity] = v1[step];
  markFalse(m3m, KUBERNETES_NODE_READY, reason, severity, message);
  setV1Beta2Condition(m3m, { type: ASSOCIATE_METADATA, status: 'False', reason: v2[step], ...(message ? { message } : {}) });
}

/**
 * A problem reported on KubernetesNodeReady (an unusable workload cluster) has become a plain wait
 * (the Secret missing, the apiserver starting): the same reason with severity Info and the wait's
 * message, so the earlier failure does not stay on the object; a later, more precise wait replaces an
 * earlier one. Nothing changes when no problem was shown.
 */
export function setNodeWaiting(m3m: Metal3Machine, message: string): void {
  const current = getCondition(m3m, KUBERNETES_NODE_READY);
  if (current?.status !== 'False' || current.reason !== V1Beta1Reason.AssociateM3MetaDataFailed) return;
  markFalse(m3m, KUBERNETES_NODE_READY, V1Beta1Reason.AssociateM3MetaDataFailed, 'Info', message);
}

/** E-5 fix: the Node exists with our provider ID. */
export function setNodeReady(m3m: Metal3Machine): void {
  markTrue(m3m, KUBERNETES_NODE_READY);
}

/** M-36 step 3. */
export function setDataWaiting(m3m: Metal3Machine, message: string): void {
  markFalse(m3m, METAL3_DATA_READY, V1Beta1Reason.WaitingForMetal3Data, 'Info', message);
  setV1Beta2Condition(m3m, { type: METAL3_DATA_READY, status: 'False', reason: V1Beta2Reason.WaitingForMetal3Data, message });
}

/** M-36 step 4. */
export function setDataReady(m3m: Metal3Machine): void {
  markTrue(m3m, METAL3_DATA_READY);
  setV1Beta2Condition(m3m, { type: METAL3_DATA_READY, status: 'True', reason: V1Beta2Reason.Metal3DataSecretsReady });
}

/** M-19, P-9: no data template renders the secrets; whoever set them did. Once only. */
export function setSecretsSetExternally(m3m: Metal3Machine): void {
  if (isV1Beta2True(m3m, METAL3_DATA_READY)) return;
  markTrue(m3m, METAL3_DATA_READY);
  setV1Beta2Condition(m3m, { type: METAL3_DATA_READY, status: 'True', reason: V1Beta2Reason.SecretsSetExternally });
}

export function setPause(m3m: Metal3Machine, state: PauseState): void {
  if (state === 'Paused') {
    markFalse(m3m, ASSOCIATE_BMH, V1Beta1Reason.Metal3MachinePaused, 'Info', '');
    setV1Beta2Condition(m3m, { type: PAUSED, status: 'True', reason: V1Beta2Reason.Paused });
  } else if (state === 'NotPaused') {
    setV1Beta2Condition(m3m, { type: PAUSED, status: 'False', reason: V1Beta2Reason.NotPaused });
  } else if (state.failed === 'set') {
    markFalse(m3m, ASSOCIATE_BMH, V1Beta1Reason.PauseAnnotationSetFailed, 'Info', state.message);
    setV1Beta2Condition(m3m, {
      type: PAUSED,
      status: 'False',
      reason: V1Beta2Reason.PauseAnnotationSetFailed,
      message: `Failed to set pause annotation on associated BareMetalHost. Error: ${state.message}`,
    });
  } else {
    markFalse(m3m, ASSOCIATE_BMH, V1Beta1Reason.PauseAnnotationRemoveFailed, 'Info', state.message);
    setV1Beta2Condition(m3m, {
      type: PAUSED,
      status: 'False',
      reason: V1Beta2Reason.PauseAnnotationRemoveFailed,
      message: `Failed to remove pause annotation on associated BareMetalHost. Error: ${state.message}`,
    });
  }
}
