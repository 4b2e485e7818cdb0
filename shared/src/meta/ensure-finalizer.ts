// Finalizer writes that concurrent writers cannot undo. Each write is a JSON Patch whose `test` op
// pins the finalizer list it was computed from (kube-rs's guard): if another controller changed the
// list in between, the server refuses the whole patch, and we re-read and try again instead of
// duplicating or dropping someone's finalizer.
import type { Api, JsonPatchOperation, KubeObject } from '@metal3-ts/generated';
import { ignoreNotFound } from '@metal3-ts/generated/runtime/errors';
import { isStaleOrGuardFailed, retryOnConflict } from '../controller/retry-on-conflict.ts';
import { appendGuarded } from '../patch/append-guarded.ts';
import { hasFinalizer } from './finalizers.ts';

export type FinalizerApi<T extends KubeObject> = Pick<Api<T>, 'get' | 'jsonPatch'>;

export interface FinalizerWriteOptions<T extends KubeObject> {
  /** Called with the object the server returned from the write (read-your-own-writes feed). */
  readonly onWrite?: (written: T) => void;
  /** Writes tried before giving up with a RetryExhaustedError; default 5. */
  readonly attempts?: number;
}

/**
 * One guarded write: `plan` computes the operations from the copy at hand (undefined: nothing to
 * write); a failed `test` op (422) or a stale resourceVersion (409) means re-read and plan again.
 */
async function guardedWrite<T extends KubeObject>(
  api: FinalizerApi<T>,
  obj: T,
  options: FinalizerWriteOptions<T>,
  plan: (current: T) => JsonPatchOperation[] | undefined,
): Promise<T | undefined> {
  const name = obj.metadata.name;
  if (!name) throw new Error(`${obj.kind}: cannot write finalizers of an object without a name`);
  const what = `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${name}: writing its finalizers`;
  return await retryOnConflict(
    obj,
    async (current) => {
      const operations = plan(current);
      if (!operations) return undefined;
      const written = await api.jsonPatch(name, operations);
      options.onWrite?.(written);
      return written;
    },
    { what, reread: () => ignoreNotFound(api.get(name)), attempts: options.attempts, retryable: isStaleOrGuardFailed },
  );
}

/**
 * Adds finalizer `finalizer` on the server unless it is already there or the object is being
 * deleted (the apiserver refuses new finalizers then). Does not modify `obj`.
 *
 * Guarantees: the finalizer is added exactly once, and no finalizer another writer added or removed
 * concurrently is lost or resurrected.
 *
 * Returns the written object, or undefined when nothing was written (already present, deleting, gone).
 */
export function ensureFinalizer<T extends KubeObject>(
  api: FinalizerApi<T>,
  obj: T,
  finalizer: string,
  options: FinalizerWriteOptions<T> = {},
): Promise<T | undefined> {
  return guardedWrite(api, obj, options, (current) => {
    if (hasFinalizer(current, finalizer) || current.metadata.deletionTimestamp) return undefined;
    return appendGuarded('/metadata/finalizers', current.metadata.finalizers, finalizer);
  });
}

/**
 * Removes finalizer `finalizer` on the server, guarded by a `test` of the entry at its index, so a
 * concurrent change to the list cannot make us remove someone else's finalizer. Does not modify
 * `obj`. Returns the written object, or undefined when nothing was written (absent or gone).
 */
export function removeFinalizerGuarded<T extends KubeObject>(
  api: FinalizerApi<T>,
  obj: T,
  finalizer: string,
  options: FinalizerWriteOptions<T> = {},
): Promise<T | undefined> {
  return guardedWrite(api, obj, options, (current) => {
    const index = current.metadata.finalizers?.indexOf(finalizer) ?? -1;
    if (index < 0) return undefined;
    return [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ];
  });
}
