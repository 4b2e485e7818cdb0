// The rendered Secrets of a Metal3Data as they stand, read live (Secrets are not cached: the watch
// of rendered Secrets keeps their metadata only, and a planted Secret is not in it), and the one
// repair allowed: a leftover of a former Metal3Data (its controller is a Metal3Data that is gone or
// has another uid: a re-created machine's predecessor) is deleted, guarded by its uid, so ours can be
// rendered. A Secret anybody else controls is never touched (issue 21 point 0).
import type { Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3DataResource, type Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isConflict, isNotFound } from '@metal3-ts/generated/runtime/errors';
import { writeStep } from '../errors.ts';
import { secretOwnership } from './secret-ownership.ts';
import type { SecretTarget } from './secrets.ts';

export type RenderedSecretState =
  | { readonly kind: 'Missing' | 'Ours' }
  /** A former Metal3Data's; `uid` is the Secret's own, for the guarded delete. */
  | { readonly kind: 'Leftover'; readonly uid: string; readonly deleting: boolean }
  /** Not ours and not to be touched: `reason` completes "Secret <name> already exists and …". */
  | { readonly kind: 'Foreign'; readonly reason: string };

async function readOrUndefined<T>(what: string, step: 'secret read' | 'former owner read', read: () => Promise<T>): Promise<T | undefined> {
  return writeStep(what, step, async () => {
    try {
      return await read();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  });
}

/** The state of `target`'s Secret for `data`. */
export async function renderedSecretState(client: Client, data: Readonly<Metal3Data>, target: SecretTarget, what: string): Promise<RenderedSecretState> {
  const namespace = data.metadata.namespace ?? '';
  const secret = await readOrUndefined(what, 'secret read', () => client.api(SecretResource, namespace).get(target.name));
  const ownership = secretOwnership(secret, data);
  if (ownership.kind !== 'FormerData') return ownership.kind === 'Foreign' ? ownership : { kind: ownership.kind };
  // Read live: a Metal3Data this process has not cached yet must not lose its Secret.
  const owner = await readOrUndefined(what, 'former owner read', () => client.api(Metal3DataResource, namespace).get(ownership.owner.name));
  if (owner && owner.metadata.uid === ownership.owner.uid) {
    return { kind: 'Foreign', reason: `it is controlled by Metal3Data ${ownership.owner.name}, which still exists` };
  }
  return { kind: 'Leftover', uid: ownership.uid, deleting: ownership.deleting };
}

/** Deletes a leftover, only if it is still the Secret that was judged (uid). True: it is gone. */
export async function deleteLeftover(client: Client, data: Readonly<Metal3Data>, name: string, uid: string, what: string): Promise<boolean> {
  return writeStep(what, 'secret delete', async () => {
    try {
      await client.api(SecretResource, data.metadata.namespace ?? '').delete(name, { preconditions: { uid } });
      return true;
    } catch (error) {
      if (isNotFound(error)) return true;
      // Replaced meanwhile by another Secret of the name: judged again on the next pass.
      if (isConflict(error)) return false;
      throw error;
    }
  });
}
