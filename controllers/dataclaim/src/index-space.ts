// The index space of a template, as decisions (research DT-12, E-34, performance A11). Pure: the
// inputs are what the informers hold, the output is a number or a choice of Metal3Data. The lock that
// makes an index really ours is the create of `<template>-<index>` (index-lock.ts); these functions
// only make a good first guess so that a lost race is rare, and decide where to go next when one is lost.
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { belongsToClaim, isLinkedToTemplate } from './association.ts';

/**
 * The lowest index not in `taken` (DT-12). CAPM3 phrases it as "the smallest i in 0..n-1 that is not
 * taken, else n" over the n taken indexes; for non-negative indexes that is the same number.
 */
export function lowestFreeIndex(taken: ReadonlySet<number>): number {
  let index = 0;
  while (taken.has(index)) index++;
  return index;
}

export interface TakenInputs {
  /** The template being allocated from. */
  readonly template: Readonly<Metal3DataTemplate>;
  /** Metal3Data candidates (the informer's, already narrowed by index; re-checked here). */
  readonly datas: readonly Readonly<Metal3Data>[];
  /** Whether a claim of that name exists now (the informer's view). */
  readonly claimExists: (name: string) => boolean;
  /** The claim allocating: its own ledger entry does not block it. */
  readonly claim: Readonly<Metal3DataClaim>;
}

/**
 * Indexes that cannot be handed out: those of every Metal3Data linked to the template, terminating
 * ones included (their name is still taken: E-34), plus the template's `status.indexes` entries of
 * other claims that still exist (a Metal3Data another replica created may not have reached our
 * informer yet). Entries of claims that are gone are ignored, so a ledger entry left behind by a
 * forced deletion cannot block an index for ever.
 */
export function takenIndexes({ template, datas, claimExists, claim }: TakenInputs): Set<number> {
  const taken = new Set<number>();
  for (const data of datas) {
    const index = data.spec?.index ?? 0;
    if (isLinkedToTemplate(data, template) && !belongsToClaim(data, claim)) taken.add(index);
  }
  for (const [name, index] of Object.entries(template.status?.indexes ?? {})) {
    if (name !== claim.metadata.name && claimExists(name)) taken.add(index);
  }
  return taken;
}

/** The Metal3Data of `claim` among `datas`: the one its status names first, then by index. */
export function dataOfClaim(
  claim: Readonly<Metal3DataClaim>,
  datas: readonly Readonly<Metal3Data>[],
): { keep?: Readonly<Metal3Data>; duplicates: Readonly<Metal3Data>[] } {
  const mine = datas.filter((d) => belongsToClaim(d, claim));
  if (mine.length === 0) return { duplicates: [] };
  const named = claim.status?.renderedData?.name;
  const sorted = [...mine].sort((a, b) => {
    if (a.metadata.name === named) return -1;
    if (b.metadata.name === named) return 1;
    return (a.spec?.index ?? 0) - (b.spec?.index ?? 0);
  });
  const [keep, ...duplicates] = sorted;
  return keep ? { keep, duplicates } : { duplicates };
}
