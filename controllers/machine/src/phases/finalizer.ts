// Phase `finalizer` (M-18): our finalizer is on the Metal3Machine before any host can name it, and on
// every machine a normal-flow pass reconciled, as upstream. Issue 20 spends no write of its own on it
// where another write goes anyway: a pass that records a host carries it in that locked write
// (host-record.ts), the first step towards a claim. So:
// - before the phases (reconcileFinalizer), a guarded write of its own only when the machine already
//   records a host (a claim may follow in this pass without a record write: a crash between record
//   and claim, an upgrade, a record a user wrote);
// - after the phases (reconcileLateFinalizer), a guarded write of its own when the pass ended without
//   recording (waiting for bootstrap data or a host, invalid input): nothing was claimed meanwhile,
//   since every claim follows a record, so the machine had nothing to lose before it.
// Each written object is adopted by the scope, so the final patch is computed against it.
import { ensureFinalizer } from '@metal3-ts/shared/meta/ensure-finalizer';
import { hasFinalizer } from '@metal3-ts/shared/meta/finalizers';
import type { MachineContext, PhaseResult } from '../context.ts';
import { HOST_ANNOTATION, METAL3_MACHINE_FINALIZER } from '../names.ts';
import { adoptWrite, type MachineScope } from '../scope.ts';

export async function reconcileFinalizer(_ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  if (!scope.m3m.metadata.annotations?.[HOST_ANNOTATION]) return undefined;
  await addFinalizer(scope);
  return undefined;
}

export async function reconcileLateFinalizer(_ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  await addFinalizer(scope);
  return undefined;
}

async function addFinalizer(scope: MachineScope): Promise<void> {
  if (hasFinalizer(scope.m3m, METAL3_MACHINE_FINALIZER)) return;
  const written = await ensureFinalizer(scope.api, scope.base, METAL3_MACHINE_FINALIZER);
  if (written) adoptWrite(scope, written);
}
