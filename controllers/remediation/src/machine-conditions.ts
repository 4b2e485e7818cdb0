// Giving a Machine back to Cluster API (RS-15, RS-19, research S-1): upstream writes only the v1beta1
// `OwnerRemediated` False/WaitingForRemediation/Warning, which Cluster API ≥ v1.11 ignores, so the
// Machine is never replaced. We also write the v1beta2 condition MachineSet and KubeadmControlPlane
// decide on (status.v1beta2.conditions through the v1beta1 API), with the triple CAPI's own
// MachineHealthCheck uses. One patch of the Machine's status, conditions merged three-way.
import type { Client } from '@metal3-ts/generated';
import { type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { markFalse } from '@metal3-ts/shared/conditions/set';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { PatchHelper } from '@metal3-ts/shared/patch/patch-helper';
import { OWNER_REMEDIATED, WAITING_FOR_REMEDIATION, WAITING_FOR_REMEDIATION_MESSAGE } from './names.ts';

/** The two conditions on a copy of the Machine (pure). */
export function withOwnerRemediated(machine: Readonly<Machine>): Machine {
  const next = structuredClone(machine) as Machine;
  markFalse(next, OWNER_REMEDIATED, WAITING_FOR_REMEDIATION, 'Warning', '');
  setV1Beta2Condition(next, { type: OWNER_REMEDIATED, status: 'False', reason: WAITING_FOR_REMEDIATION, message: WAITING_FOR_REMEDIATION_MESSAGE });
  return next;
}

export async function markOwnerRemediated(client: Client, machine: Readonly<Machine>): Promise<void> {
  const helper = new PatchHelper(structuredClone(machine) as Machine, client.api(MachineResource, machine.metadata.namespace));
  try {
    await helper.patch(withOwnerRemediated(machine), { ownedConditions: [OWNER_REMEDIATED] });
  } catch (error) {
    throw new Error(`error setting cluster api conditions: ${(error as Error).message}`, { cause: error });
  }
}
