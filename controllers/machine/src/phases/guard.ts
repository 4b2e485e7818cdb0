// Phase `guard`: what the guard decided (guards.ts, M-9…M-16, seed 002) becomes a finding and a wait
// for every decision but Reconcile, which goes on to the phases that change things. A missing owner
// Machine, Cluster, infrastructure or Metal3Cluster is woken by that object's events; the safety net
// stays behind them as upstream's poll did.
import type { MachineContext, PhaseResult } from '../context.ts';
import type { MachineScope } from '../scope.ts';

export function reconcileGuard(ctx: MachineContext, scope: MachineScope): PhaseResult {
  const decision = scope.decision;
  const wait = (association: NonNullable<MachineScope['observed']['association']>, result: PhaseResult) => {
    scope.observed.association = association;
    return result;
  };
  switch (decision.kind) {
    case 'Paused':
      scope.observed.pause = 'Paused';
      scope.log.info('Reconciliation is paused for this object');
      return {};
    case 'WaitForOwnerRef':
      return wait({ kind: 'OwnerRef' }, {});
    case 'WaitForMachine':
      return wait({ kind: 'Machine', message: `Waiting for the owner Machine ${decision.name}` }, ctx.safetyNet);
    case 'WaitForCluster':
      return wait({ kind: 'Cluster', message: decision.message }, ctx.safetyNet);
    case 'WaitForInfrastructure':
      return wait({ kind: 'Infrastructure' }, ctx.safetyNet);
    case 'WaitForMetal3Cluster':
      return wait({ kind: 'Metal3Cluster' }, ctx.safetyNet);
    case 'Failed':
    case 'NotOurs':
    case 'Delete':
      return {};
    case 'Reconcile':
      return undefined;
  }
}
