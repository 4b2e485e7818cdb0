// Phase `node` (P-*, M-32, M-33): once the host is provisioned, agree on a provider ID with the
// machine's Node (phases/provider-id.ts) and tell what became of it. Waiting for the Node is a
// result: the awaited-Node watch wakes the machine, the awaited-Node poll backs it up. A workload
// cluster that is not there yet (no kubeconfig Secret, apiserver not answering) is such a wait too. Every
// other failure is thrown, so it reaches the error metrics and the harness's backoff: a refused
// request (a Forbidden Node patch, a refused list) and a kubeconfig that can never work wait for a
// person, so they also get a Warning event WorkloadClusterUnusable, told once per message, and
// deriveStatus shows them on KubernetesNodeReady (Warning).
import { getCondition } from '@metal3-ts/shared/conditions/get';
import type { MachineContext, PhaseResult } from '../context.ts';
import { messageOf, nodeFailureKind } from '../errors.ts';
import { KUBERNETES_NODE_READY } from '../names.ts';
import { type MachineScope, reconciling } from '../scope.ts';
import { reconcileProviderID } from './provider-id.ts';

export async function reconcileNode(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const { machine, cluster, metal3Cluster } = reconciling(scope);
  if (!scope.host) return ctx.safetyNet;
  const poll = (): PhaseResult => ({ requeueAfterMs: ctx.nodePoll.next(scope.key) });
  /** Judged on the cached object: this pass's metadata phase has just turned the condition into a wait. */
  const isNew = (message: string) => getCondition(scope.cached, KUBERNETES_NODE_READY)?.message !== message;
  let outcome;
  try {
    outcome = await reconcileProviderID(ctx.deps, scope.m3m, scope.host, machine, cluster, metal3Cluster, scope.observed);
  } catch (error) {
    const message = messageOf(error);
    const kind = nodeFailureKind(error);
    if (kind === 'wait') {
      scope.log.info(`Workload cluster not usable yet: ${message}`);
      scope.observed.node = { kind: 'Waiting', message: `Workload cluster not usable yet: ${message}` };
      return poll();
    }
    if (kind === 'unusable') {
      if (isNew(message)) ctx.deps.events?.warning(scope.m3m, 'WorkloadClusterUnusable', message);
      scope.log.error('Workload cluster unusable', { error: message });
    }
    throw error;
  }
  // P-9, M-19: a ready machine without a data template got its Secrets from elsewhere. Said as soon
  // as it is ready (also while the hostname fallback still looks for the Node), so Ready follows.
  if ((scope.observed.ready ?? scope.m3m.status?.ready) && !scope.m3m.spec?.dataTemplate) scope.observed.data = { kind: 'External' };
  switch (outcome.kind) {
    case 'ready':
      if (outcome.patchedNode) ctx.deps.events?.normal(scope.m3m, 'ProviderIDSet', `Node ${outcome.patchedNode} given providerID ${outcome.providerID}`);
      if (!outcome.node) return poll();
      scope.observed.node = { kind: 'Ready' };
      ctx.stopAwaitingNode(scope.key);
      return {};
    case 'waiting':
      scope.log.debug(outcome.message);
      return poll();
    case 'conflict':
      // A fix in the workload cluster raises no event here: keep polling, but tell once per problem.
      if (isNew(outcome.message)) ctx.deps.events?.warning(scope.m3m, 'ProviderIDConflict', outcome.message);
      scope.observed.node = { kind: 'Problem', step: 'AssociateM3MetaDataFailed', message: outcome.message };
      return poll();
  }
}
