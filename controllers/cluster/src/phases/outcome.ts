// Phase `outcome` (C-8, C-9, C-13, C-14): what a pass over a live Metal3Cluster found (findOutcome,
// pure) is recorded for deriveStatus; its log line is logged, and its Warning event raised when the
// message is new (the recorder also folds repeats). A missing owner Cluster is looked at again after
// the safety-net wait: its creation is no event of ours. Writes: a Warning event, nothing else.
import { getCondition } from '@metal3-ts/shared/conditions/get';
import type { ClusterContext, PhaseResult } from '../context.ts';
import { findOutcome } from '../decisions/outcome.ts';
import { BAREMETAL_INFRASTRUCTURE_READY } from '../names.ts';
import { type ClusterScope, liveDecision } from '../scope.ts';

export function reconcileOutcome(ctx: ClusterContext, scope: ClusterScope): PhaseResult {
  const finding = findOutcome(liveDecision(scope), scope.m3c);
  scope.observed.outcome = finding.outcome;
  if (finding.log) scope.log.info(finding.log);
  const { outcome } = finding;
  if (finding.warning && 'message' in outcome && getCondition(scope.m3c, BAREMETAL_INFRASTRUCTURE_READY)?.message !== outcome.message) {
    ctx.deps.events?.warning(scope.m3c, finding.warning, outcome.message);
  }
  return finding.requeue ? ctx.safetyNet : undefined;
}
