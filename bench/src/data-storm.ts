// Performance S3 (research A11): a storm of Metal3DataClaims on one Metal3DataTemplate, all present
// when the Metal3DataClaim controller starts. Measures the time until every claim names its
// Metal3Data (p50/p99 per claim and all), the conflicts seen (409: AlreadyExists on a Metal3Data
// name, or a claim status written under a stale resourceVersion) and the requests per claim, for one
// process and for two replicas racing without leader election; then checks the indexes are unique
// and dense. Reference: CAPM3 pays every conflict as a 30 s requeue, and S3's target is
// T_all ≤ N × create latency / concurrency + 5 s. Rendering (the Metal3Data controller) is not part
// of this run: it measures allocation.
import type { Client } from '@metal3-ts/generated';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  newMetal3DataClaim,
  newMetal3DataTemplate,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { dataClaimController } from '@metal3-ts/controller-dataclaim/controller';
import { InformerFactory } from '@metal3-ts/shared/cache/informer-factory';
import { WriteThroughClient } from '@metal3-ts/shared/cache/write-through';
import { newClient } from '@metal3-ts/shared/client/client';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import { percentile, type Row } from './report.ts';

const CONCURRENCY = 10;
const TEMPLATE = 'storm';
const image = { url: 'http://172.22.0.1/images/node.img', checksum: 'http://172.22.0.1/images/node.img.sha256sum', format: 'raw' as const };

interface StormResult {
  readonly allSeconds: number;
  readonly perClaimSeconds: readonly number[];
  readonly conflicts: number;
  readonly requests: number;
  readonly duplicates: number;
  readonly gaps: number;
}

export async function benchDataStorm(env: TestEnv, admin: Client, claims: number): Promise<Row[]> {
  const createLatencies: number[] = [];
  const single = await storm(env, admin, claims, 1, createLatencies);
  const pair = await storm(env, admin, claims, 2, createLatencies);
  const createMs = percentile(createLatencies, 50);
  const target = (claims * createMs) / 1000 / CONCURRENCY + 5;
  const rows = (label: string, r: StormResult): Row[] => [
    {
      what: `${label}: time until all ${claims} claims are bound`,
      ours: r.allSeconds,
      unit: 's',
      reference: { label: 'S3 target N×create/concurrency+5 s', value: target },
      better: 'lower',
    },
    { what: `${label}: time to bound per claim, p50`, ours: percentile(r.perClaimSeconds, 50), unit: 's', better: 'lower' },
    {
      what: `${label}: time to bound per claim, p99`,
      ours: percentile(r.perClaimSeconds, 99),
      unit: 's',
      reference: { label: 'one CAPM3 conflict requeue', value: 30 },
      better: 'lower',
    },
    { what: `${label}: conflicts seen (409 AlreadyExists/Conflict)`, ours: r.conflicts, unit: 'requests', better: 'lower' },
    { what: `${label}: requests per claim (reads and writes)`, ours: r.requests / claims, unit: 'requests', better: 'lower' },
    { what: `${label}: duplicate indexes`, ours: r.duplicates, unit: 'indexes', reference: { label: 'required', value: 0 }, better: 'lower' },
    { what: `${label}: gaps below the highest index`, ours: r.gaps, unit: 'indexes', better: 'lower' },
  ];
  return [
    ...rows(`one process, ${CONCURRENCY} workers`, single),
    ...rows(`two replicas, ${CONCURRENCY} workers each, no leader election`, pair),
    { what: 'claim create latency (admin, p50), for the target', ours: createMs, unit: 'ms', better: 'lower' },
  ];
}

async function storm(env: TestEnv, admin: Client, count: number, replicas: number, createLatencies: number[]): Promise<StormResult> {
  const namespace = await freshNamespace(env.admin.client, `bench-storm${replicas}`);
  // Cluster API's webhook (the machine scenes run the real one) wants a Cluster to name its infrastructure;
  // the Metal3Cluster itself is not needed here: claims only read the Cluster.
  const infrastructureRef = { apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Cluster', name: 'cluster' };
  await admin.api(ClusterResource, namespace).create(newCluster({ metadata: { name: 'cluster' }, spec: { infrastructureRef } }));
  await admin.api(Metal3DataTemplateResource, namespace).create(newMetal3DataTemplate({ metadata: { name: TEMPLATE }, spec: { clusterName: 'cluster' } }));
  await createClaims(admin, namespace, count, createLatencies);

  // Who is bound when: an admin informer over the claims, polled.
  const watch = new InformerFactory(admin, { namespace });
  const claimStore = watch.informerFor(Metal3DataClaimResource);
  const stopWatch = new AbortController();
  const watching = watch.start(stopWatch.signal);
  await watch.waitForSync();

  const counters = Array.from({ length: replicas }, () => new RequestCounter());
  const stop = new AbortController();
  const runs: Promise<unknown>[] = [];
  const t0 = performance.now();
  for (const counter of counters) {
    const base = newClient(env.admin, { counter });
    const informers = new InformerFactory(base, { namespace });
    const controller = dataClaimController({ client: new WriteThroughClient(base.transport, informers), informers, config: { concurrency: CONCURRENCY } });
    runs.push(informers.start(stop.signal), controller.start(stop.signal));
  }
  const boundAt = new Map<string, number>();
  while (boundAt.size < count) {
    for (const claim of claimStore.store.list()) {
      const name = claim.metadata.name ?? '';
      if (claim.status?.renderedData?.name && !boundAt.has(name)) boundAt.set(name, (performance.now() - t0) / 1000);
    }
    if (performance.now() - t0 > 600_000) throw new Error(`storm: only ${boundAt.size} of ${count} claims bound after 600 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const allSeconds = (performance.now() - t0) / 1000;
  // Let duplicates (two replicas) be given back before counting indexes.
  await new Promise((r) => setTimeout(r, 1000));
  stop.abort();
  stopWatch.abort();
  await Promise.all([...runs, watching]);

  const indexes = (await admin.api(Metal3DataResource, namespace).list()).items.map((d) => d.spec?.index ?? -1);
  const distinct = new Set(indexes);
  const highest = Math.max(-1, ...indexes);
  return {
    allSeconds,
    perClaimSeconds: [...boundAt.values()],
    conflicts: counters.reduce((n, c) => n + c.count({ code: 409 }), 0),
    requests: counters.reduce((n, c) => n + c.count() - c.count({ verb: 'watch' }), 0),
    duplicates: indexes.length - distinct.size,
    gaps: highest + 1 - distinct.size,
  };
}

/** Metal3Machines and their claims as the Metal3Machine controller makes them (DC-1), 25 at a time. */
async function createClaims(admin: Client, namespace: string, count: number, latencies: number[]): Promise<void> {
  const machines = admin.api(Metal3MachineResource, namespace);
  const claims = admin.api(Metal3DataClaimResource, namespace);
  let next = 0;
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const name = `m-${String(i).padStart(4, '0')}`;
        const labels = { 'cluster.x-k8s.io/cluster-name': 'cluster' };
        const machine = await machines.create(newMetal3Machine({ metadata: { name, labels }, spec: { image, dataTemplate: { name: TEMPLATE, namespace } } }));
        const t = performance.now();
        await claims.create(
          newMetal3DataClaim({
            metadata: {
              name,
              labels,
              finalizers: ['metal3machine.infrastructure.cluster.x-k8s.io'],
              ownerReferences: [{ apiVersion: machine.apiVersion, kind: 'Metal3Machine', name, uid: machine.metadata.uid ?? '', controller: true }],
            },
            spec: { template: { name: TEMPLATE, namespace } },
          }),
        );
        latencies.push(performance.now() - t);
      }
    }),
  );
}
