// A MachineDeployment's status from its MachineSets' (CAPI's calculateStatus): replica counts summed
// over every set, updatedReplicas from the set of the current template, the selector string for the
// scale subresource, and the phase: ScalingUp while fewer Machines are ready than wanted, ScalingDown
// while more, Running when equal, Failed when a set reports a failure.
import type { MachineDeployment, MachineDeploymentStatus, MachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { deploymentReplicas } from './machinedeployment-sets.ts';
import { selectorString } from './machineset-selector.ts';

export function deploymentStatus(
  md: Readonly<MachineDeployment>,
  newSet: Readonly<MachineSet> | undefined,
  sets: readonly Readonly<MachineSet>[],
): MachineDeploymentStatus {
  const desired = deploymentReplicas(md);
  const total = (pick: (ms: Readonly<MachineSet>) => number | undefined) => sets.reduce((n, ms) => n + (pick(ms) ?? 0), 0);
  const replicas = total((ms) => ms.status?.replicas);
  const readyReplicas = total((ms) => ms.status?.readyReplicas);
  const availableReplicas = total((ms) => ms.status?.availableReplicas);
  const failed = sets.some((ms) => ms.status?.failureReason || ms.status?.failureMessage);
  const phase = failed ? 'Failed' : readyReplicas < desired ? 'ScalingUp' : readyReplicas > desired ? 'ScalingDown' : 'Running';
  return {
    ...md.status,
    selector: md.spec?.selector ? selectorString(md.spec.selector) : '',
    replicas,
    updatedReplicas: newSet?.status?.replicas ?? 0,
    readyReplicas,
    availableReplicas,
    unavailableReplicas: Math.max(0, desired - availableReplicas),
    phase,
    ...(md.metadata.generation !== undefined ? { observedGeneration: md.metadata.generation } : {}),
  };
}
