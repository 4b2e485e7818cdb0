// M-14, M-15: a paused Cluster pauses the host of each of its machines (BMO stops acting on it), and
// un-pausing lifts our pause again. A user's own pause (another annotation value) is never lifted.
// A failed propagation is recorded (the Paused condition says it) and looked at again after the
// safety-net interval, as upstream does.
import type { Cluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { pauseHost, unpauseHost } from '@metal3-ts/baremetal/pause';
import { messageOf } from '../errors.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import type { MachineContext, PhaseResult } from '../context.ts';
import type { PauseState } from '../observations.ts';
import type { MachineScope } from '../scope.ts';

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

/** Phase `pause` (every flow but deletion): records the Paused state; a failed propagation stops the pass. */
export async function reconcilePause(ctx: MachineContext, scope: MachineScope): Promise<PhaseResult> {
  const pause = await reconcileHostPause(ctx.deps, scope.cluster, scope.host);
  if (pause) scope.observed.pause = pause;
  return typeof pause === 'object' ? ctx.safetyNet : undefined;
}
