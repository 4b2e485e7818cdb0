// What the phases of a Metal3Machine reconcile share: the clients, the informers, the host inventory
// and the knobs. Narrow function types stand where a test may want another implementation (the
// workload client, the random pick).
import type { Client } from '@metal3-ts/generated';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { HostInventory } from '@metal3-ts/baremetal/inventory';
import type { RandomIndex } from '@metal3-ts/baremetal/selection';
import type { ClusterKey } from '@metal3-ts/shared/workload/errors';
import type { NodeWaits } from '@metal3-ts/shared/workload/node-waits';
import type { MachineInformers } from './scope.ts';

/** A client for a workload cluster (the ClusterCache's `get`). */
export type WorkloadClient = (cluster: ClusterKey) => Promise<Client>;

export interface MachineReconcilerDeps {
  /** Its writes should reach the informers (runMain's WriteThroughClient). */
  readonly client: Client;
  readonly informers: MachineInformers;
  readonly inventory: HostInventory;
  readonly workloadClient: WorkloadClient;
  readonly events?: EventRecorder | undefined;
  /** Wall clock for `status.lastUpdated`. */
  readonly now?: (() => Date) | undefined;
  readonly random?: RandomIndex | undefined;
  /** Safety-net requeue behind the watches (default 30 s, §0.4). */
  readonly requeueAfterMs?: number | undefined;
  /** First look again at a workload cluster while its Node is awaited; doubles up to requeueAfterMs (default 1 s). */
  readonly nodePollMs?: number | undefined;
  /** Where a machine waiting for its Node is recorded (keys: awaitedKeys), so that the Node's arrival wakes it. */
  readonly awaitedNodes?: Pick<NodeWaits, 'wait' | 'forget' | 'stop' | 'nodes'> | undefined;
  /** CAPM3_FAST_TRACK: `'true'` keeps released hosts powered on. */
  readonly fastTrack?: string | undefined;
}
