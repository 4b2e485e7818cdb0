// The Metal3Machine controller in the benchmark process through the shared test runner
// (@metal3-ts/test/testing/controller-runner: as main.ts wires it, under a user bound to exactly the
// controller's deploy/rbac.yaml), with a ClusterCache for workload clusters whose requests count on
// the same request counter as the management ones, its reconcile counter, and a tally of its writes
// by shape (write-tally.ts). Events are recorded, as in main.ts; the figures count them apart.
import { fileURLToPath } from 'node:url';
import { metal3MachineController } from '@metal3-ts/controller-machine/controller';
import { CONTROLLER_NAME } from '@metal3-ts/controller-machine/names';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { type RunningController, startInProcess } from '@metal3-ts/test/testing/controller-runner';
import { tallyWrites, type WriteTally } from './write-tally.ts';

const RBAC_MANIFEST = fileURLToPath(new URL('../../controllers/machine/deploy/rbac.yaml', import.meta.url));

/** A client-side rate limit; `undefined` turns it off. */
export type Limit = { readonly qps: number; readonly burst: number } | undefined;

export interface BenchController extends RunningController {
  /** The controller's writes by shape since it started (clear it with the counter). */
  readonly writeTally: WriteTally;
}

/** Starts it for `namespace` with 10 workers (CAPM3's default) and the given client limit; resolves once its caches are synced. */
export async function startBenchController(env: TestEnv, namespace: string, limit: Limit): Promise<BenchController> {
  let writeTally: WriteTally = new Map();
  const running = await startInProcess(env, namespace, {
    rbac: RBAC_MANIFEST,
    user: 'bench-machine',
    component: 'metal3-ts-machine',
    controllers: [CONTROLLER_NAME],
    ...(limit ? { limit } : {}),
    build: (deps) => {
      const clusterCache = new ClusterCache(deps.client, { counter: deps.counter, registry: deps.registry, ...(limit ?? {}) });
      const { client, informers, registry, log, events } = deps;
      // One transport carries the reconciles' writes and the events (the recorder's client shares it).
      writeTally = tallyWrites(client.transport);
      const controller = metal3MachineController({
        client,
        informers,
        registry,
        log,
        events,
        workloadClient: (cluster) => clusterCache.get(cluster),
        config: { concurrency: 10 },
      });
      // The cache has nothing to run: it closes once the controller stopped.
      return [controller, { start: () => Promise.resolve(), close: () => clusterCache.close() }];
    },
  });
  return { ...running, writeTally };
}
