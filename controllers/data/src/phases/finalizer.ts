// Phases `finalizer` and `finalizer removal` (D-8, D-7, §0.1): our finalizer goes on before anything
// is claimed or rendered, and comes off last, after the IP claims were given back. Both are guarded
// JSON patches of their own (shared ensure-finalizer), so the allocation side's finalizer on the same
// object is never lost or undone.
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ensureFinalizer, removeFinalizerGuarded } from '@metal3-ts/shared/meta/ensure-finalizer';
import { METAL3_DATA_FINALIZER } from '../names.ts';
import type { PhaseContext, PhaseResult } from '../phase.ts';
import type { DataScope } from '../scope.ts';

/** Writes: metadata.finalizers (ours appended). Records the written object as the patch's base. */
export async function addFinalizer(_ctx: PhaseContext, scope: DataScope): Promise<PhaseResult> {
  const written = await ensureFinalizer(scope.api, scope.observed.data as Metal3Data, METAL3_DATA_FINALIZER);
  if (written) scope.observed.data = written;
  return undefined;
}

/** Writes: metadata.finalizers (ours removed; the allocation side's stays). */
export async function removeFinalizer(_ctx: PhaseContext, scope: DataScope): Promise<PhaseResult> {
  await removeFinalizerGuarded(scope.api, scope.cached as Metal3Data, METAL3_DATA_FINALIZER);
  return undefined;
}
