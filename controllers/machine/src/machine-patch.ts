// The final write of a Metal3Machine reconcile: what deriveStatus decided, sent against the object the
// pass last saw from the server, metadata/spec first and the status after it.
//
// Why in two steps (issue 20): a spec write (spec.providerID, spec.failureDomain) moves
// metadata.generation, and every v1beta2 condition carries the generation it observed. Written
// together with the old generation, the conditions would be rewritten by the very next pass for
// that number alone. The conditions were derived from the spec this pass writes, so once the spec
// write returns the new generation, they observed it: stampGeneration says so before the status goes.
// Only when the generation moved by exactly our write (one step); if someone else changed the spec
// too, the conditions keep the old number and the pass their change causes writes the new one.
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { PatchHelper, PatchOptions } from '@metal3-ts/shared/patch/patch-helper';

/** `desired` with every v1beta2 condition that observed generation `from` observing `to` instead. */
export function stampGeneration(desired: Readonly<Metal3Machine>, from: number | undefined, to: number | undefined): Metal3Machine {
  const next = structuredClone(desired) as Metal3Machine;
  const conditions = next.status?.v1beta2?.conditions;
  if (from === undefined || to !== from + 1 || !conditions) return next;
  for (const condition of conditions) if (condition.observedGeneration === from) condition.observedGeneration = to;
  return next;
}

/** `obj` with the status of `statusOf`: a patch of it writes metadata and spec only (or status only). */
const withStatus = (obj: Readonly<Metal3Machine>, statusOf: Readonly<Metal3Machine>): Metal3Machine => {
  const next = structuredClone(obj) as Metal3Machine;
  if (statusOf.status === undefined) delete next.status;
  else next.status = structuredClone(statusOf.status);
  return next;
};

/**
 * Writes `desired` against `base` (the helper's snapshot): metadata/spec, then the status with the
 * generation the first write produced. A failed first write still lets the status go (it shows the
 * failure); both failures are thrown together.
 */
export async function patchMachine(
  helper: PatchHelper<Metal3Machine>,
  base: Readonly<Metal3Machine>,
  desired: Readonly<Metal3Machine>,
  options: PatchOptions,
): Promise<void> {
  let mainFailure: unknown;
  let status: Metal3Machine;
  try {
    const written = await helper.patch(withStatus(desired, base), options);
    status = written ? stampGeneration(desired, base.metadata.generation, written.metadata.generation) : structuredClone(desired) as Metal3Machine;
  } catch (error) {
    mainFailure = error;
    // The helper's snapshot is still `base`: send the status alone.
    status = withStatus(base, desired);
  }
  try {
    await helper.patch(status, options);
  } catch (error) {
    if (mainFailure !== undefined) throw new AggregateError([mainFailure, error], `${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
  if (mainFailure !== undefined) throw mainFailure;
}
