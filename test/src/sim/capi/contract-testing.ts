// Test helpers for the CAPI core simulators: polling for an outcome, and stand-in provider objects
// (Metal3Cluster/Metal3Machine/KubeadmConfig used as plain contract objects whose status the test sets).
import type { Api, KubeObject } from '@metal3-ts/generated';
import { isNotFound } from '@metal3-ts/generated/runtime/errors';
import { type Eventually, eventuallyWith } from '../../testing/eventually.ts';

/** Polls `check` until it returns something other than undefined (10 s unless told, every 25 ms). */
export const waitFor: Eventually = eventuallyWith({ timeoutMs: 10_000, pollMs: 25 });

/** Resolves true once `name` is gone (404). */
export function waitForGone(api: Pick<Api<KubeObject>, 'get'>, name: string, timeoutMs?: number): Promise<true> {
  return waitFor(`${name} to be gone`, async () => {
    try {
      await api.get(name);
      return undefined;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }, timeoutMs);
}

/** Holds still for `ms` (to show that something does NOT happen). */
export const settle = (ms = 300): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A test-only finalizer that keeps an object around until the test lets go. */
export const HOLD_FINALIZER = 'test.metal3-ts.dev/hold';

/** Removes every finalizer of `name` (the test playing the provider that lets go). */
export async function release(api: Pick<Api<KubeObject>, 'mergePatch'>, name: string): Promise<void> {
  try {
    await api.mergePatch(name, { metadata: { finalizers: null } });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
