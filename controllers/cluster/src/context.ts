// What every phase of a Metal3Cluster reconcile shares across reconciles: the dependencies and the
// safety-net requeue. The per-reconcile state is the scope (scope.ts); this is the controller's.
import type { Client } from '@metal3-ts/generated';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { Result } from '@metal3-ts/shared/reconcile/reconcile';
import { REQUEUE_AFTER_MS } from './names.ts';
import type { ClusterInformers } from './scope.ts';

export interface ReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: ClusterInformers;
  readonly events?: EventRecorder;
  /** Wall clock for `status.lastUpdated`. */
  readonly now?: () => Date;
  /** How long to wait before looking again at a deletion or a missing owner (default 30 s). */
  readonly requeueAfterMs?: number;
}

export interface ClusterContext {
  readonly deps: ReconcilerDeps;
  /** Look again after the safety-net interval: what we wait for is no event of ours (§0.4). */
  readonly safetyNet: Result;
}

export function clusterContext(deps: ReconcilerDeps): ClusterContext {
  return { deps, safetyNet: { requeueAfterMs: deps.requeueAfterMs ?? REQUEUE_AFTER_MS } };
}

export type { PhaseResult } from '@metal3-ts/shared/controller/phases';
