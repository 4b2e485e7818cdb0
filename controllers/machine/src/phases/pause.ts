// M-14, M-15: a paused Cluster pauses the host of each of its machines (BMO stops acting on it), and
// un-pausing lifts our pause again. A user's own pause (another annotation value) is never lifted.
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { pauseHost, unpauseHost } from '@metal3-ts/baremetal/pause';
import { messageOf } from '../errors.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import type { PauseState } from '../status.ts';

/**
 * Propagates the Cluster's pause to `host`. Returns the Paused condition state to write, or
 * undefined when there is no host or Cluster to speak of (M-14/M-15: "none ⇒ nothing").
 */
export async function reconcileHostPause(
  deps: Pick<MachineReconcilerDeps, 'client' | 'inventory'>,
  cluster: Readonly<Cluster> | undefined,
  host: Readonly<BareMetalHost> | undefined,
): Promise<PauseState | undefined> {
  if (!cluster) return undefined;
  const paused = cluster.spec?.paused === true;
  if (!host) return paused ? 'Paused' : 'NotPaused';
  const onWrite = (written: BareMetalHost) => deps.inventory.noteWrite(written);
  try {
    if (paused) {
      await pauseHost(deps.client, host, { onWrite });
      return 'Paused';
    }
    await unpauseHost(deps.client, host, { clusterName: cluster.metadata.name ?? '', onWrite });
    return 'NotPaused';
  } catch (error) {
    return { failed: paused ? 'set' : 'remove', message: messageOf(error) };
  }
}
