// Phase `finalizer` (M-17): our finalizer goes on before anything is claimed, as a guarded write of
// its own (JSON-Patch `test`), so the Metal3Machine can never disappear while a host names it. The
// written object replaces the working copy, so the final patch is computed against it.
import { ensureFinalizer } from '@metal3-ts/shared/meta/ensure-finalizer';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { MachineContext, PhaseResult } from '../context.ts';
import { METAL3_MACHINE_FINALIZER } from '../names.ts';
import type { MachineScope } from '../scope.ts';

export async function reconcileFinalizer(_ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const written = await ensureFinalizer(scope.api, scope.m3m, METAL3_MACHINE_FINALIZER);
  if (written) scope.m3m = structuredClone(written) as Metal3Machine;
  return undefined;
}
