// What every phase of a Metal3Machine reconcile shares across reconciles: the dependencies, the
// safety-net requeue, the pace of the awaited-Node poll and what was told once per machine. The
// per-reconcile state is the scope (scope.ts); this is the controller's.
import type { Result } from '@metal3-ts/shared/reconcile/reconcile';
import { AwaitedNodePoll } from './awaited-node-poll.ts';
import type { MachineReconcilerDeps } from './deps.ts';
import { REQUEUE_AFTER_MS } from './names.ts';

export interface MachineContext {
  readonly deps: MachineReconcilerDeps;
  /** Look again after the safety-net interval behind the watches (§0.4). */
  readonly safetyNet: Result;
  /** How soon to look at a workload cluster again while a machine's Node is awaited. */
  readonly nodePoll: AwaitedNodePoll;
  /** The last dropped-address report per machine (`namespace/name`), so each problem is told once. */
  readonly reportedDrops: Map<string, string>;
  /** BMC Secrets this process labelled, per machine, until the machine carries the mark (labelCredentials). */
  readonly labelledSecrets: Map<string, string>;
  /** Hosts a worker of this process is recording and claiming now, so the others pick elsewhere first. */
  readonly claiming: Set<string>;
  /** The Node was found, or the machine is gone: no more polls, no more Node events for it. */
  stopAwaitingNode(key: string): void;
}

export function machineContext(deps: MachineReconcilerDeps): MachineContext {
  const requeueAfterMs = deps.requeueAfterMs ?? REQUEUE_AFTER_MS;
  const nodePoll = new AwaitedNodePoll(deps.nodePollMs ?? 1_000, requeueAfterMs);
  return {
    deps,
    safetyNet: { requeueAfterMs },
    nodePoll,
    reportedDrops: new Map(),
    labelledSecrets: new Map(),
    claiming: new Set(),
    stopAwaitingNode(key) {
      nodePoll.forget(key);
      deps.awaitedNodes?.forget(key);
    },
  };
}

export type { PhaseResult } from '@metal3-ts/shared/controller/phases';
