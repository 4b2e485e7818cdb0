// Indexes this process is creating right now, per template. Workers of one process that allocate
// from the same template at the same moment would otherwise all pick the same lowest free index and
// all but one would lose the create race; with reservations each picks a different one. Reserving
// is synchronous, so "compute the free index, then reserve it" cannot interleave with another
// worker. Across processes the create of `<template>-<index>` stays the only lock.
export class IndexReservations {
  readonly #byTemplate = new Map<string, Set<number>>();

  /** Indexes reserved under `template` (a templateKey). */
  reserved(template: string): ReadonlySet<number> {
    return this.#byTemplate.get(template) ?? new Set();
  }

  /** Reserves `index`; the returned function gives it back (idempotent). */
  reserve(template: string, index: number): () => void {
    let set = this.#byTemplate.get(template);
    if (!set) this.#byTemplate.set(template, set = new Set());
    set.add(index);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      set.delete(index);
      if (set.size === 0 && this.#byTemplate.get(template) === set) this.#byTemplate.delete(template);
    };
  }
}
