// DT-12/DT-13, and where we go beyond upstream (performance A11): claiming an index. The create of
// `<template>-<index>` is the lock — the apiserver lets exactly one writer create a name — so any
// number of workers and replicas may race. A lost race (AlreadyExists) is answered at once, through
// the harness's retryOnConflict (its stop rules: a bounded number of creates, then a transient
// RetryExhaustedError the worker loop retries with backoff):
//   - the Metal3Data there was made for this very claim (another worker or replica got there first):
//     adopt it;
//   - it belongs to another claim: try the next free index straight away (CAPM3 waits 30 s and, worse,
//     drops the rest of its pass);
//   - it vanished in between: try the same index again.
// The first guess comes from the informer (index-space.ts) and this process's reservations, so a
// single process does not lose races to itself.
import type { Api } from '@metal3-ts/generated';
import { ignoreNotFound, isAlreadyExists } from '@metal3-ts/generated/runtime/errors';
import type { Metal3Data, Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { belongsToClaim } from './association.ts';
import { lowestFreeIndex } from './index-space.ts';

export type CreateOutcome =
  | { readonly kind: 'Created'; readonly data: Metal3Data }
  | { readonly kind: 'Adopted'; readonly data: Metal3Data }
  | { readonly kind: 'TakenByOther' }
  | { readonly kind: 'Vanished' };

/** The I/O the allocation loop needs; tests script it. */
export interface AllocationPort {
  /** Indexes that look taken now (informer, ledger and this process's reservations). */
  taken(): ReadonlySet<number>;
  /** Reserves `index` in this process; the returned function releases it. */
  reserve(index: number): () => void;
  /** Tries to create the Metal3Data for `index`. */
  create(index: number): Promise<CreateOutcome>;
}

export interface Allocation {
  readonly data: Metal3Data;
  readonly index: number;
  /** Whether the Metal3Data was already there for this claim (made by another worker or replica). */
  readonly adopted: boolean;
  /** Creates lost to another claim's Metal3Data on the way (AlreadyExists). */
  readonly conflicts: number;
}

export interface AllocateOptions {
  /** Try this index first if it looks free (a claim whose recorded Metal3Data vanished keeps its index). */
  readonly preferred?: number | undefined;
  /** Creates to try before giving up for now (default 100). */
  readonly maxAttempts?: number;
  /** For the error message. */
  readonly template: string;
}

/** A create that found the name taken (by another claim, or by one that vanished since): try again. */
class IndexLostError extends Error {
  override name = 'IndexLostError';
}

/**
 * Creates the claim's Metal3Data at the lowest free index; undefined when the namespace refused the
 * create as gone (404). Throws RetryExhaustedError after `maxAttempts` lost races.
 */
export function allocateIndex(port: AllocationPort, options: AllocateOptions): Promise<Allocation | undefined> {
  const lost = new Set<number>();
  let conflicts = 0;
  const attempt = async (): Promise<Allocation> => {
    // Synchronous from here to reserve(): no other worker can pick the same index in between.
    const taken = new Set(port.taken());
    for (const index of lost) taken.add(index);
    const preferred = options.preferred;
    const index = preferred !== undefined && !taken.has(preferred) ? preferred : lowestFreeIndex(taken);
    const release = port.reserve(index);
    let outcome: CreateOutcome;
    try {
      outcome = await port.create(index);
    } finally {
      release();
    }
    switch (outcome.kind) {
      case 'Created':
      case 'Adopted':
        return { data: outcome.data, index, adopted: outcome.kind === 'Adopted', conflicts };
      case 'TakenByOther':
        conflicts++;
        lost.add(index);
        throw new IndexLostError(`index ${index} is another claim's`);
      case 'Vanished':
        throw new IndexLostError(`index ${index} vanished before it could be read`);
    }
  };
  return retryOnConflict(lost, attempt, {
    what: `Metal3DataTemplate ${options.template}: allocating an index (every index tried was taken by another claim before our create)`,
    attempts: options.maxAttempts ?? 100,
    retryable: (error) => error instanceof IndexLostError,
    // Nothing to read back: the next attempt asks the informer (and our losses) afresh.
    reread: () => Promise.resolve(lost),
  });
}

/**
 * Creates `data`; on AlreadyExists reads what is there to tell our claim's Metal3Data from another's.
 * Other errors are thrown.
 */
export async function createMetal3Data(
  api: Pick<Api<Metal3Data>, 'create' | 'get'>,
  data: Metal3Data,
  claim: Readonly<Metal3DataClaim>,
): Promise<CreateOutcome> {
  try {
    return { kind: 'Created', data: await api.create(data) };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const existing = await ignoreNotFound(api.get(data.metadata.name ?? ''));
  if (!existing) return { kind: 'Vanished' };
  return belongsToClaim(existing, claim) ? { kind: 'Adopted', data: existing } : { kind: 'TakenByOther' };
}
