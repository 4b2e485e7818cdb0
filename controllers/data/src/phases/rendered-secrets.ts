// The rendered Secrets of a Metal3Data as they stand, read live (Secrets are not cached: the watch
// of rendered Secrets keeps their metadata only, and a planted Secret is not in it). A leftover of a
// former Metal3Data (its controller is a Metal3Data uid that no longer exists: a re-created machine's
// predecessor) is never deleted here: its controller reference names a gone owner, so the garbage
// collector deletes it, and its deletion (the rendered-Secret watch) wakes the Metal3Data waiting for
// the name. "Gone" is judged from the Metal3Data cache by uid; nothing destructive depends on it, so
// a lagging cache only delays the wait's wording. A Secret anybody else controls is never touched
// (issue 21 point 0).
import type { Client } from '@metal3-ts/generated';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import type { Store } from '@metal3-ts/shared/cache/types';
import { runStep } from '@metal3-ts/shared/controller/step-error';
import { type SecretOwnership, secretOwnership } from '../decisions/secret-ownership.ts';
import type { SecretTarget } from '../decisions/secrets.ts';

export type RenderedSecretState =
  | { readonly kind: 'Missing' | 'Ours' }
  /** A former Metal3Data's, waiting for the garbage collector. */
  | { readonly kind: 'Leftover' }
  /** Not ours and not to be touched: `reason` completes "Secret <name> already exists and …". */
  | { readonly kind: 'Foreign'; readonly reason: string };

/** The state of `target`'s Secret for `data`; `datas` is the Metal3Data cache. */
export async function renderedSecretState(
  client: Client,
  datas: Store<Metal3Data>,
  data: Readonly<Metal3Data>,
  target: SecretTarget,
  what: string,
): Promise<RenderedSecretState> {
  const namespace = data.metadata.namespace ?? '';
  const secret = await runStep(what, 'secret read', async () => {
    try {
      return await client.api(SecretResource, namespace).get(target.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  });
  return judge(secretOwnership(secret, data), datas, namespace);
}

/** Pure: a former Metal3Data's Secret is a leftover unless a Metal3Data of that uid is still cached. */
export function judge(ownership: SecretOwnership, datas: Store<Metal3Data>, namespace: string): RenderedSecretState {
  if (ownership.kind !== 'FormerData') return ownership.kind === 'Foreign' ? ownership : { kind: ownership.kind };
  const owner = datas.get({ namespace, name: ownership.owner.name });
  if (owner && owner.metadata.uid === ownership.owner.uid) {
    return { kind: 'Foreign', reason: `it is controlled by Metal3Data ${ownership.owner.name}, which still exists` };
  }
  return { kind: 'Leftover' };
}

/** Why a Metal3Data waits for `name` (the status and log say it). */
export const leftoverWait = (name: string): string => `Waiting for the garbage collector to delete Secret ${name} of a former Metal3Data`;
