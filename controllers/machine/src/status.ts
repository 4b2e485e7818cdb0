// The one place a Metal3Machine's status is decided (M-42): deriveStatus turns what the phases of a
// reconcile observed (observations.ts) into the object the final patch writes: every condition of
// both dialects, status.ready, status.addresses, the data references (data-references.ts),
// failureReason/failureMessage, the Ready summaries,
// lastUpdated, the one spec field a reconcile learns rather than owns (spec.providerID, agreed
// with the workload cluster), and the BMC Secret mark that rides with it. Pure: no I/O, no clock (the scope carries `now`), table-tested.
//
// The topics are applied in a fixed order, pause first (its v1beta1 AssociateBMH reason is replaced
// by any association finding of the same pass), a failure last (it names the step it happened in,
// and that step's condition shows it).
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { refusalOf } from '@metal3-ts/shared/controller/refusal';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { setReadySummary } from '@metal3-ts/shared/conditions/summary';
import { setV1Beta2ReadySummary } from '@metal3-ts/shared/conditions/v1beta2/summary';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { withReferences } from './data-references.ts';
import { causeOf, HostTakenError, isInvalidConfiguration, messageOf, nodeFailureKind } from './errors.ts';
import { BMC_SECRET_LABELLED_ANNOTATION, FailureReason, V1BETA1_READY_INPUTS, V1BETA2_READY_INPUTS } from './names.ts';
import type { Association, DataState, NodeState, Observations } from './observations.ts';
import {
  setAssociated,
  setAssociateFailed,
  setAssociateWaiting,
  setDataReady,
  setDataWaiting,
  setMetadataAssociated,
  setNodeProblem,
  setNodeReady,
  setNodeWaiting,
  setPause,
  setSecretsSetExternally,
} from './status-conditions.ts';

export interface StatusInput {
  /** The working copy after the phases: metadata, spec and the data references as they will be patched. */
  readonly m3m: Readonly<Metal3Machine>;
  /** The object the final patch is computed against: lastUpdated moves only when the status differs from it. */
  readonly base: Readonly<Metal3Machine>;
  readonly observed: Readonly<Observations>;
  readonly now: Date;
}

/** The Metal3Machine as the final patch should leave it. */
export function deriveStatus(input: StatusInput): Metal3Machine {
  const { observed } = input;
  const m3m = structuredClone(observed.references ? withReferences(input.m3m, observed.references) : input.m3m) as Metal3Machine;
  if (observed.pause) setPause(m3m, observed.pause);
  if (observed.association) showAssociation(m3m, observed.association);
  if (observed.metadataAssociated) setMetadataAssociated(m3m);
  if (observed.node) showNode(m3m, observed.node);
  if (observed.data) showData(m3m, observed.data);
  const status = (m3m.status ??= {});
  if (observed.addresses) status.addresses = observed.addresses;
  if (observed.ready !== undefined) status.ready = observed.ready;
  if (observed.providerID) (m3m.spec ??= {}).providerID = observed.providerID;
  // M-26's mark rides with the provider ID's write (issue 20), or goes alone for a machine that had
  // its provider ID before the label landed (an upgrade): never a write of its own before that.
  if (observed.secretLabelled && m3m.spec?.providerID) {
    m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [BMC_SECRET_LABELLED_ANNOTATION]: observed.secretLabelled };
  }
  if (observed.failure !== undefined) showFailure(m3m, observed.failure);
  finishStatus(input.base, m3m, input.now);
  return m3m;
}

function showAssociation(m3m: Metal3Machine, association: Association): void {
  if (association.kind === 'Associated') setAssociated(m3m);
  else if (association.kind === 'Failed') setAssociateFailed(m3m, association.message);
  else setAssociateWaiting(m3m, association);
}

function showNode(m3m: Metal3Machine, node: NodeState): void {
  if (node.kind === 'Ready') setNodeReady(m3m);
  else if (node.kind === 'Waiting') setNodeWaiting(m3m, node.message);
  else setNodeProblem(m3m, node.step, node.message);
}

function showData(m3m: Metal3Machine, data: DataState): void {
  if (data.kind === 'Ready') setDataReady(m3m);
  else if (data.kind === 'Waiting') setDataWaiting(m3m, data.message);
  else setSecretsSetExternally(m3m);
}

/**
 * A failed step's condition (M-21, M-28, X-2, X-3): association steps on AssociateBMH, the metadata
 * and Node steps on KubernetesNodeReady/AssociateMetal3MachineMetaData, the deletion steps there
 * too. A refusal in any other step (the finalizer, a stray host, forgetting a record) shows on
 * AssociateBMH, so every refused request reaches a condition naming verb and resource. Invalid
 * configuration sets the failure fields (seed 002).
 */
function showFailure(m3m: Metal3Machine, failure: unknown): void {
  const step = failure instanceof StepError ? failure.step : undefined;
  const cause = causeOf(failure);
  const message = messageOf(failure);
  if (isInvalidConfiguration(cause)) {
    const status = (m3m.status ??= {});
    status.failureReason = FailureReason.InvalidConfiguration;
    status.failureMessage = cause.message;
  }
  const refused = refusalOf(cause) !== undefined;
  switch (step) {
    case 'spec':
    case 'associate':
      return setAssociateFailed(m3m, message);
    case 'settled':
    case 'host':
      if (cause instanceof HostTakenError || isInvalidConfiguration(cause) || refused) setAssociateFailed(m3m, message);
      return;
    case 'metadata':
      return setNodeProblem(m3m, 'AssociateM3MetaDataFailed', message);
    case 'node':
      // A refused request or a kubeconfig that can never work waits for a person; anything else
      // (the workload apiserver starting) is shown as a wait.
      if (nodeFailureKind(cause) === 'unusable') return setNodeProblem(m3m, 'AssociateM3MetaDataFailed', message);
      return setNodeWaiting(m3m, `Workload cluster not usable yet: ${message}`);
    case 'dissociate':
      return setNodeProblem(m3m, 'DisassociateM3MetaDataFailed', message);
    case 'release':
      return setNodeProblem(m3m, 'DeletionFailed', message);
    default:
      if (refused) setAssociateFailed(m3m, message);
  }
}

/**
 * M-42 and M-31: both Ready summaries, then `lastUpdated` = `now` when anything else in the status
 * changed (so a reconcile that finds nothing new writes nothing).
 */
function finishStatus(base: Readonly<Metal3Machine>, m3m: Metal3Machine, now: Date): void {
  setReadySummary(m3m, V1BETA1_READY_INPUTS);
  setV1Beta2ReadySummary(m3m, V1BETA2_READY_INPUTS);
  const { lastUpdated: _was, ...was } = base.status ?? {};
  const { lastUpdated: _is, ...is } = m3m.status ?? {};
  if (deepEqual(was, is) || !m3m.status) return;
  m3m.status.lastUpdated = now.toISOString().replace(/\.\d+Z$/, 'Z');
}
