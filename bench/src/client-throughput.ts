// Requests per second the client sustains against the real apiserver, and client CPU per request,
// for our transport beside @kubernetes/client-node doing the same GET. The apiserver runs in its own
// process, so process.cpuUsage() here is client cost only.
import process from 'node:process';
import { Client, Transport } from '@metal3-ts/generated';
import { ConfigMapResource, newConfigMap } from '@metal3-ts/generated/core/v1';
import type { TestEnv } from '@metal3-ts/test/envtest/env';
import type { Row } from './report.ts';

interface Run {
  readonly perSecond: number;
  readonly cpuMsPerRequest: number;
}

async function drive(requests: number, concurrency: number, once: () => Promise<unknown>): Promise<Run> {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await once();
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { perSecond: requests / seconds, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests };
}

export async function benchClientThroughput(env: TestEnv, namespace: string, requests: number): Promise<Row[]> {
  const transport = Transport.fromConnection(env.admin);
  const ours = new Client(transport).api(ConfigMapResource, namespace);
  await ours.create(newConfigMap({ metadata: { name: 'bench' }, data: { key: 'x'.repeat(1500) } }));

  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(env.kubeconfigPath);
  const theirs = kc.makeApiClient(k8s.CoreV1Api);

  const rows: Row[] = [];
  for (const concurrency of [1, 16]) {
    // Warm both (connections, JIT), then measure.
    await drive(200, concurrency, () => ours.get('bench'));
    await drive(200, concurrency, () => theirs.readNamespacedConfigMap({ name: 'bench', namespace }));
    const a = await drive(requests, concurrency, () => ours.get('bench'));
    const b = await drive(requests, concurrency, () => theirs.readNamespacedConfigMap({ name: 'bench', namespace }));
    rows.push({
      what: `GET ConfigMap, concurrency ${concurrency}`,
      ours: a.perSecond,
      unit: 'req/s',
      reference: { label: 'client-node 2.0.1', value: b.perSecond },
      better: 'higher',
    });
    rows.push({
      what: `client CPU per GET, concurrency ${concurrency}`,
      ours: a.cpuMsPerRequest,
      unit: 'ms',
      reference: { label: 'client-node 2.0.1', value: b.cpuMsPerRequest },
      better: 'lower',
    });
  }
  transport.close();
  return rows;
}
