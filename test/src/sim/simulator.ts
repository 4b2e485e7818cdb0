// What every simulator is built from: small controllers on the harness (shared/), running in the test
// process (or the lab) against the real apiserver. A simulator plays one peer's part of the contract
// (BMO, Cluster API core, the kubeadm bootstrap provider, IPAM, workload clusters) and documents, at
// the top of its module, which part it covers and which it does not.
import { Client, type Connection, Transport } from '@metal3-ts/generated';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { type Clock, realClock } from '@metal3-ts/shared/clock/clock';
import { type Logger, silentLogger } from '@metal3-ts/shared/log/logger';
import type { Runnable } from '@metal3-ts/shared/manager/runnable';
import { Registry } from '@metal3-ts/shared/metrics/registry';

/** Everything a simulator's controllers need; one set shared by all simulators of a run. */
export interface SimulatorDeps {
  /** Writes through to the informers (read your own writes). */
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly registry: Registry;
  readonly log: Logger;
  readonly clock: Clock;
}

/** `namespace`: the simulators see that namespace only (a benchmark scene beside others' objects); default all. */
export function simulatorDeps(connection: Connection, options: { log?: Logger; clock?: Clock; namespace?: string } = {}): SimulatorDeps {
  const reader = new Client(Transport.fromConnection(connection));
  const informers = new InformerFactory(reader, options.namespace !== undefined ? { namespace: options.namespace } : {});
  return {
    client: new WriteThroughClient(reader.transport, informers),
    informers,
    registry: new Registry(),
    log: options.log ?? silentLogger,
    clock: options.clock ?? realClock,
  };
}

export interface RunningSimulators {
  /** What the simulators have seen: a test that must know a simulator will act on a write waits on it here, not on a sleep. */
  readonly informers: InformerFactory;
  /** Stops every controller (in-flight reconciles finish) and every informer. */
  stop(): Promise<void>;
}

/** Starts the informers and the given controllers; resolves once the informers have synced. */
export async function startSimulators(deps: SimulatorDeps, runnables: readonly Runnable[]): Promise<RunningSimulators> {
  const ac = new AbortController();
  const runs = [deps.informers.start(ac.signal), ...runnables.map((r) => r.start(ac.signal))];
  const failed = Promise.all(runs).catch((error: unknown) => deps.log.error('a simulator stopped', { error: String(error) }));
  await deps.informers.waitForSync();
  return {
    informers: deps.informers,
    async stop() {
      ac.abort();
      await failed;
      deps.client.transport.close();
    },
  };
}
