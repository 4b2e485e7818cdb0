// Giving a Machine back to Cluster API (RS-15, RS-19, research S-1): upstream writes only the v1beta1
// `OwnerRemediated` False/WaitingForRemediation/Warning, which Cluster API ≥ v1.11 ignores, so the
// Machine is never replaced. We also write the v1beta2 condition MachineSet and KubeadmControlPlane
// decide on (status.v1beta2.conditions through the v1beta1 API), with the triple CAPI's own
// MachineHealthCheck uses. One patch of the Machine's status, conditions merged three-way.
// A Machine read at v1beta2 (Cluster API v1beta2 served, S-10) is written at v1beta2: the condition
// alone, server-side applied into `status.conditions` (a list keyed by type), so no other writer's
// condition is touched and no v1beta1 request is needed; the deprecated v1beta1 copy is Cluster API's
// to keep for down-conversion and is not written.
import type { Client, MetaV1Condition } from '@metal3-ts/generated';
import { type Machine, MachineResource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { MachineResource as MachineV1beta2Resource } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta2';
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

/** The field manager of the v1beta2 condition write. */
export const REMEDIATION_FIELD_MANAGER = 'metal3-ts-remediation';

/** The v1beta2 condition as applied at v1beta2 (pure): its transition time kept while its status holds. */
export function ownerRemediatedCondition(machine: Readonly<Machine>, now: string): MetaV1Condition {
  const current = machine.status?.v1beta2?.conditions?.find((c) => c.type === OWNER_REMEDIATED);
  return {
    type: OWNER_REMEDIATED,
    status: 'False',
    reason: WAITING_FOR_REMEDIATION,
    message: WAITING_FOR_REMEDIATION_MESSAGE,
    lastTransitionTime: current?.status === 'False' ? current.lastTransitionTime : now,
    ...(machine.metadata.generation !== undefined ? { observedGeneration: machine.metadata.generation } : {}),
  };
}

export async function markOwnerRemediated(client: Client, machine: Readonly<Machine>, now: string): Promise<void> {
  try {
    if (machine.apiVersion === `${MachineV1beta2Resource.group}/${MachineV1beta2Resource.version}`) {
      await client.api(MachineV1beta2Resource, machine.metadata.namespace).applyStatus({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Machine',
        metadata: { name: machine.metadata.name ?? '' },
        status: { conditions: [ownerRemediatedCondition(machine, now)] },
      }, { fieldManager: REMEDIATION_FIELD_MANAGER, force: true });
      return;
    }
    const helper = new PatchHelper(structuredClone(machine) as Machine, client.api(MachineResource, machine.metadata.namespace));
    await helper.patch(withOwnerRemediated(machine), { ownedConditions: [OWNER_REMEDIATED] });
  } catch (error) {
    throw new Error(`error setting cluster api conditions: ${(error as Error).message}`, { cause: error });
  }
}
