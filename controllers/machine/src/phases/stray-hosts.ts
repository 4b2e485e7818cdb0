// One machine, one host. Should a Metal3Machine ever hold a host besides the one it records (a claim
// whose record lost to another replica and could not be undone, a hand edit, a restore), that host is
// released the way a deletion releases it: deprovisioned, then handed back. Each pass performs the
// next due step; the stray host's own events bring the machine back for the next one.
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostKey } from '@metal3-ts/shared/host/host-patch';
import { releaseHost } from '@metal3-ts/shared/host/release';
import type { MachineReconcilerDeps } from '../deps.ts';
import { consumerOf } from './associate.ts';

/** Releases every host that names `m3m` as consumer except `kept`; returns the keys of those still on their way out. */
export async function releaseStrayHosts(
  deps: MachineReconcilerDeps,
  m3m: Readonly<Metal3Machine>,
  kept: Readonly<BareMetalHost>,
  machine: Readonly<Machine>,
  cluster: Readonly<Cluster>,
): Promise<string[]> {
  const consumer = consumerOf(deps, m3m, machine);
  const pending: string[] = [];
  for (const host of deps.inventory.ownedBy(consumer.ref)) {
    if (hostKey(host) === hostKey(kept)) continue;
    const step = await releaseHost(
      deps.client,
      host,
      { consumer: consumer.ref, clusterName: machine.spec?.clusterName || cluster.metadata.name || '', fastTrack: deps.fastTrack ?? 'false' },
      { onWrite: (h) => deps.inventory.noteWrite(h) },
    );
    if (step.step === 'deprovisioning') pending.push(hostKey(host));
  }
  return pending;
}
