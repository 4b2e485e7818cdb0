// Appending one entry to a list in metadata (finalizers, ownerReferences) with a JSON patch whose
// `test` op pins the list it was computed from, so a concurrent writer's change to that list fails
// the patch (422) instead of being overwritten; the caller re-reads and decides again
// (`retryOnConflict` with `isStaleOrGuardFailed`). Pure: it only builds the operations.
import type { JsonPatchOperation } from '@metal3-ts/generated';

/** The operations adding `entry` at the end of the list at `path`, which is now `current` (absent or empty: a new list). */
export function appendGuarded<E extends string | object>(path: string, current: readonly E[] | undefined, entry: E): JsonPatchOperation[] {
  return current && current.length > 0
    ? [
      { op: 'test', path, value: current },
      { op: 'add', path: `${path}/-`, value: entry },
    ]
    : [
      // `test` against null also matches a missing list (RFC 6902 as the apiserver implements it).
      { op: 'test', path, value: null },
      { op: 'add', path, value: [entry] },
    ];
}
