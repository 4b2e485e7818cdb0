// What a pass over a live (not deleting) Metal3Cluster found, decided from the guard and the object
// alone (pure, research C-8, C-9, C-13, C-14): the outcome its status reports, the line to log, the
// Warning to raise when the message is new, and whether to look again. The reconcile does the I/O
// around it (the guarded writes before, then the event, the log and the one status patch).
import type { Metal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { Guard } from '../guards.ts';
import { V1Beta1Reason } from '../names.ts';
import type { ClusterOutcome } from '../observations.ts';
import { withDefaults } from './defaults.ts';
import { describeProblems, validateControlPlaneEndpoint } from './endpoint.ts';

/** The guard decisions of a pass that works on the object (deletion has its own path). */
export type LiveGuard = Extract<Guard, { kind: 'Paused' | 'WaitForOwnerRef' | 'OwnerClusterMissing' | 'Reconcile' }>;

export interface Finding {
  readonly outcome: ClusterOutcome;
  /** An info line for the log. */
  readonly log?: string;
  /** The reason of a Warning event, raised when the outcome's message is new. */
  readonly warning?: string;
  /** Look again after the safety-net wait: the owner Cluster's creation is no event of ours (C-8). */
  readonly requeue?: boolean;
}

export function findOutcome(decision: LiveGuard, m3c: Readonly<Metal3Cluster>): Finding {
  switch (decision.kind) {
    case 'Paused':
      return { outcome: { kind: 'Unchanged' }, log: 'Reconciliation is paused for this object' };
    case 'WaitForOwnerRef':
      return { outcome: { kind: 'Unchanged' }, log: 'Waiting for Cluster Controller to set OwnerRef on Metal3Cluster' };
    case 'OwnerClusterMissing': {
      const message = `Unable to get owner cluster: Cluster ${m3c.metadata.namespace ?? ''}/${decision.clusterName} not found`;
      return { outcome: { kind: 'OwnerClusterMissing', message }, warning: 'FailedToGetOwnerCluster', requeue: true };
    }
    case 'Reconcile': {
      const problems = validateControlPlaneEndpoint(withDefaults(m3c.spec).controlPlaneEndpoint);
      if (problems.length === 0) return { outcome: { kind: 'Ready' } };
      return { outcome: { kind: 'EndpointInvalid', message: describeProblems(problems) }, warning: V1Beta1Reason.ControlPlaneEndpointFailed };
    }
  }
}
