// A host write locked on the host's resourceVersion (a claim re-asserted, owner references rewritten,
// a release) is refused with 409 whenever BMO wrote the host meanwhile, which it does many times a
// minute. The decision is re-made on a fresh read and written again through the harness's
// retryOnConflict (its stop rules: 5 attempts, then a RetryExhaustedError the harness retries with
// backoff), instead of failing the whole reconcile on a race it can settle at once.
import type { Client } from '@metal3-ts/generated';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { retryOnConflict } from '@metal3-ts/shared/controller/retry-on-conflict';
import { readHost } from './claim.ts';
import { hostKey } from './host-patch.ts';

/** Runs `write` on `host`, then on a fresh copy after each conflict; undefined once the host is gone. */
export function onFreshHost<R>(
  client: Client,
  host: Readonly<BareMetalHost>,
  what: string,
  write: (current: Readonly<BareMetalHost>, attempt: number) => Promise<R>,
): Promise<R | undefined> {
  return retryOnConflict(host, write, { what: `BareMetalHost ${hostKey(host)}: ${what}`, reread: () => readHost(client, host) });
}
