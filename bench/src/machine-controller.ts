// The Metal3Machine controller in the benchmark process, wired as main.ts wires it (write-through
// client over namespaced informers, a ClusterCache for workload clusters), with a request counter
// over both the management and the workload requests, and its reconcile counter.
import type { Connection } from '@metal3-ts/generated';
import { metal3MachineController } from '@metal3-ts/controller-machine/controller';
import { CONTROLLER_NAME } from '@metal3-ts/controller-machine/names';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { Registry } from '@metal3-ts/shared/metrics/registry';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';

/** A client-side rate limit; `undefined` turns it off. */
export type Limit = { readonly qps: number; readonly burst: number } | undefined;

export interface BenchController {
  readonly counter: RequestCounter;
  reconciles(): number;
  stop(): Promise<void>;
}

/** Starts it for `namespace` with 10 workers (CAPM3's default) and the given client limit; resolves once its caches are synced. */
export async function startBenchController(connection: Connection, namespace: string, limit: Limit): Promise<BenchController> {
  const counter = new RequestCounter();
  const registry = new Registry();
  const base = newClient(connection, { counter, registry, ...(limit ?? {}) });
  const informers = new InformerFactory(base, { namespace, registry });
  const client = new WriteThroughClient(base.transport, informers);
  const clusterCache = new ClusterCache(client, { counter, registry, ...(limit ?? {}) });
  const controller = metal3MachineController({ client, informers, registry, workloadClient: (cluster) => clusterCache.get(cluster), config: { concurrency: 10 } });
  const stop = new AbortController();
  const runs = Promise.all([informers.start(stop.signal), controller.start(stop.signal)]);
  await informers.waitForSync();
  const total = registry.counter('controller_runtime_reconcile_total', '', ['controller', 'result']);
  return {
    counter,
    reconciles: () => ['success', 'error', 'requeue', 'requeue_after'].reduce((n, result) => n + total.get({ controller: CONTROLLER_NAME, result }), 0),
    async stop() {
      stop.abort();
      await runs;
      clusterCache.close();
      base.transport.close();
    },
  };
}
