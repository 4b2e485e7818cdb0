// D-9 as one phase: everything a Metal3Data needs between the guards and its status — the
// association (template, claim, Metal3Machine), the Secrets the template asks for, and for those
// not yet its own: the owner Machine and host, the pools and their IP claims, the render, the
// Secrets written. Ready means every Secret is controlled by this Metal3Data (uid), which writes
// them only after its allocations; a Secret of the name that is not its own is a leftover of a
// former Metal3Data (waited for: the garbage collector deletes it) or a conflict (reported, never
// used); neither lets the Metal3Data allocate or render. Each step that cannot go on
// says why as the outcome the status shows (steps.ts); only failed requests throw.
import type { Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { isAlreadyExists } from '@metal3-ts/generated/runtime/errors';
import type { Metal3Data, Metal3DataTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import type { RelatedObjects, RenderContext } from '../render/index.ts';
import { associationLookups, type DataInformers, ipamStores, machineLookups } from '../scope.ts';
import type { DataOutcome } from '../status.ts';
import type { Step } from '../steps.ts';
import { allocateAddresses } from './allocate.ts';
import { findAssociation, findMachineAndHost } from '../decisions/association.ts';
import { referencedPools, renderTargets } from '../decisions/secret-contents.ts';
import { leftoverWait, renderedSecretState } from './rendered-secrets.ts';
import { conflictMessage } from '../decisions/secret-ownership.ts';
import { renderedSecret, secretClusterName, type SecretTarget, secretTargets } from '../decisions/secrets.ts';

export interface CreateSecretsDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: DataInformers;
  /** `--enableBMHNameBasedPreallocation` (D-17). */
  readonly preallocation: boolean;
}

/** A step that did not find what it needed, as the outcome the status shows. */
export function stopped(step: Exclude<Step<unknown>, { kind: 'Found' }>): DataOutcome {
  return step.kind === 'Wait'
    ? { kind: 'Waiting', reason: step.reason }
    : { kind: 'Invalid', cause: step.cause, message: step.message, ...(step.field !== undefined ? { field: step.field } : {}) };
}

/** D-9: everything between the guards and the status. Mutates `data.spec` (Secret names, D-10). */
export async function createSecrets(deps: CreateSecretsDeps, data: Metal3Data, what: string): Promise<DataOutcome> {
  const { client, informers, preallocation } = deps;
  if (!data.spec?.template?.name) return { kind: 'Untouched' };
  const association = findAssociation(data, associationLookups(informers));
  if (association.kind !== 'Found') return stopped(association);
  const { template, metal3Machine } = association.value;
  const targets = secretTargets(data, template, metal3Machine);
  const pending: SecretTarget[] = [];
  const leftovers: string[] = [];
  for (const target of targets) {
    const state = await renderedSecretState(client, informers.datas.store, data, target, what);
    // Issue 21 point 0: a Secret of our name that is not ours is never reported as ours.
    if (state.kind === 'Foreign') return { kind: 'SecretConflict', message: conflictMessage(target.name, state.reason), secret: target.name };
    if (state.kind === 'Leftover') leftovers.push(target.name);
    if (state.kind !== 'Ours') pending.push(target);
  }
  // Nothing is allocated while a former Metal3Data's Secret holds the name (and maybe its address).
  if (leftovers.length > 0) return { kind: 'Waiting', reason: leftovers.map(leftoverWait).join('; ') };
  // Every Secret is controlled by this Metal3Data: it rendered them, after its allocations.
  if (pending.length === 0) return { kind: 'Ready', created: [] };

  const related = findMachineAndHost(metal3Machine, machineLookups(informers));
  if (related.kind !== 'Found') return stopped(related);
  // The renderer gets its own copies: cached objects are frozen and shared.
  const objects = structuredClone({ metal3Machine, machine: related.value.machine, host: related.value.host }) as RelatedObjects;
  const pools = referencedPools(template, objects);
  if (pools.kind !== 'Found') return stopped(pools);
  const allocations = await runStep(
    what,
    'ip claims',
    () => allocateAddresses({ client, stores: ipamStores(informers), preallocation }, data, pools.value, related.value.host.metadata.name ?? ''),
  );
  if (allocations.kind !== 'Found') return stopped(allocations);

  const context: RenderContext = {
    ...objects,
    data: structuredClone(data),
    template: structuredClone(template) as Metal3DataTemplate,
    allocationFor: (pool) => allocations.value.get(pool.name),
  };
  const contents = renderTargets(template, context, targets);
  if (contents.kind !== 'Found') return stopped(contents);
  const created: string[] = [];
  const clusterName = secretClusterName(template);
  for (const target of pending) {
    const secret = renderedSecret(target, contents.value.get(target.kind) ?? '', data, clusterName);
    const wrote = await runStep(what, 'secret create', async () => {
      try {
        await client.api(SecretResource, data.metadata.namespace).create(secret);
        return true;
      } catch (error) {
        if (isAlreadyExists(error)) return false;
        throw error;
      }
    });
    // D-12 (changed): one that appeared meanwhile is judged on the next pass, never assumed ours.
    if (!wrote) return { kind: 'Waiting', reason: `Secret ${target.name} appeared while rendering; checking whose it is` };
    created.push(target.name);
  }
  return { kind: 'Ready', created };
}
