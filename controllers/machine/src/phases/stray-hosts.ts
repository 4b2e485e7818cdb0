// One machine, one host. Should a Metal3Machine ever hold a host besides the one it records (a claim
// whose record lost to another replica and could not be undone, a hand edit, a restore), that host is
// released the way a deletion releases it: deprovisioned, then handed back. Each pass performs the
// next due step; the stray host's own events bring the machine back for the next one.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { releaseHost } from '@metal3-ts/baremetal/release';
import type { MachineReconcilerDeps } from '../deps.ts';
import type { Claimant } from '../scope.ts';
import { onFreshHost } from '@metal3-ts/baremetal/fresh-host';

/** Releases every host that names the claimant's consumer except `kept`; returns the keys of those still on their way out. */
export async function releaseStrayHosts(
  deps: MachineReconcilerDeps,
  kept: Readonly<BareMetalHost>,
  { consumer, clusterName }: Claimant,
): Promise<string[]> {
  const pending: string[] = [];
  for (const host of deps.inventory.ownedBy(consumer.ref)) {
    if (hostKey(host) === hostKey(kept)) continue;
    const step = await onFreshHost(
      deps.client,
      host,
      'releasing it as a stray',
      (current) =>
        releaseHost(deps.client, current, { consumer: consumer.ref, clusterName, fastTrack: deps.fastTrack ?? 'false' }, {
          onWrite: (h) => deps.inventory.noteWrite(h),
        }),
    );
    if (step?.step === 'deprovisioning') pending.push(hostKey(host));
  }
  return pending;
}
