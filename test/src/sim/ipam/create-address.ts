// Creating the address object for a claim, shared by both claim flavours (Metal3 IPClaim → Metal3
// IPAddress, CAPI IPAddressClaim → CAPI IPAddress): adopt the claim's existing address, else allocate
// and create; a name already taken by an object we did not know of (a stale cache, an orphan) marks
// that address used and tries the next one, while one holding this very claim's allocation is adopted.
import type { Api, KubeObject } from '@metal3-ts/generated';
import { isAlreadyExists } from '@metal3-ts/generated/runtime/errors';
import { canonicalIP } from './address.ts';
import type { Allocation } from './allocation.ts';
import { allocateFor, type PoolContext, recordAllocation } from './pool-context.ts';

type AddressObject = KubeObject & { spec?: { address: string } };

export type Created = { readonly name: string } | { readonly error: string };

/** What differs between the two flavours. */
export interface AddressFlavour<A extends AddressObject> {
  readonly api: Api<A>;
  /** The address object to create for an allocation. */
  build(allocation: Allocation): A;
  /** Whether an address object found under the name we wanted already holds this claim's allocation. */
  holdsClaim(existing: A): boolean;
}

export async function createAddressFor<A extends AddressObject>(
  ctx: PoolContext,
  claimName: string,
  adopted: Readonly<A> | undefined,
  flavour: AddressFlavour<A>,
): Promise<Created> {
  if (adopted?.spec) {
    recordAllocation(ctx, claimName, adopted.spec.address);
    return { name: adopted.metadata.name ?? '' };
  }
  for (;;) {
    const outcome = allocateFor(ctx, claimName);
    if ('error' in outcome) return outcome;
    const object = flavour.build(outcome.allocation);
    const name = object.metadata.name ?? '';
    try {
      await flavour.api.create(object);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await flavour.api.get(name);
      if (existing.spec && flavour.holdsClaim(existing)) {
        recordAllocation(ctx, claimName, existing.spec.address);
        return { name };
      }
      ctx.inventory.inUse.add(canonicalIP(outcome.allocation.address) ?? outcome.allocation.address);
      continue;
    }
    recordAllocation(ctx, claimName, outcome.allocation.address);
    return { name };
  }
}
