// A claim without a Metal3Data gets one (DT-11…DT-13): the lowest free index of its template's index
// space, created under the name lock of index-lock.ts. The claim's Metal3Machine owner must be known
// (its reference goes on the Metal3Data); without it the claim waits for an update that adds it.
import { Metal3DataResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { machineOwnerOf, templateKey } from '../association.ts';
import { allocateIndex, createMetal3Data } from '../index-lock.ts';
import { takenIndexes } from '../index-space.ts';
import { newMetal3DataFor } from '../metal3data.ts';
import { REASONS, UPSTREAM_MESSAGES } from '../names.ts';
import { type PhaseContext, step } from '../phase.ts';
import { type ClaimScope, lineageDatas } from '../scope.ts';

/**
 * Writes: a Metal3Data `<template>-<index>` (create). Records it as `data`, or the problem: no
 * Metal3Machine owner, or a failed create (upstream's message; the error is thrown and retried).
 */
export async function allocate(ctx: PhaseContext, scope: ClaimScope): Promise<void> {
  const { observed, decision } = scope;
  if (observed.data || decision.kind !== 'Allocate') return;
  const { deps, log } = ctx;
  const claim = observed.claim;
  const template = decision.template;
  const machine = machineOwnerOf(claim);
  if (!machine) {
    observed.problem = { reason: REASONS.noMachineOwner, message: UPSTREAM_MESSAGES.noMachineOwner };
    return;
  }
  const namespace = template.metadata.namespace ?? '';
  const name = template.metadata.name ?? '';
  const lineage = templateKey(namespace, name);
  const datas = deps.client.api(Metal3DataResource, namespace);
  const allocation = await step(scope, 'Metal3Data create', () =>
    allocateIndex(
      {
        taken: () => {
          const taken = takenIndexes({
            template: deps.informers.templates.store.get({ namespace, name }) ?? template,
            datas: lineageDatas(deps.informers, template),
            claimExists: (other) => deps.informers.claims.store.get({ namespace, name: other }) !== undefined,
            claim,
          });
          for (const index of deps.reservations.reserved(lineage)) taken.add(index);
          return taken;
        },
        reserve: (index) => deps.reservations.reserve(lineage, index),
        create: (index) => createMetal3Data(datas, newMetal3DataFor({ template, claim, machine, index }), claim),
      },
      { preferred: observed.preferred, template: lineage },
    )).catch((error: unknown) => {
      observed.problem = { reason: REASONS.dataWriteFailed, message: UPSTREAM_MESSAGES.createFailed };
      throw error;
    });
  if (!allocation) return; // the namespace is going away
  if (allocation.conflicts) deps.conflicts?.inc({ template: lineage }, allocation.conflicts);
  observed.data = allocation.data;
  log.info(allocation.adopted ? 'adopted the Metal3Data made for this claim' : 'allocated an index', {
    metal3Data: allocation.data.metadata.name,
    index: allocation.index,
    ...(allocation.conflicts ? { conflicts: allocation.conflicts } : {}),
  });
}
