// Heap per cached BareMetalHost, relative to the size of its JSON as the apiserver serves it
// (managedFields included; the informer drops them by default, a second run keeps them). Beside it,
// the naive cache (JSON.parse of every item kept in a Map, what client-node's ObjectCache holds)
// measured the same way in the same process.
import { Buffer } from 'node:buffer';
import type { Client, KubeList } from '@metal3-ts/generated';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { SharedInformer } from '@metal3-ts/shared/cache/informer';
import { type CacheTransform, keepEverything } from '@metal3-ts/shared/cache/transform';
import { settledHeap } from './gc.ts';
import type { Row } from './report.ts';

async function informerHeapPerHost(client: Client, namespace: string, count: number, transform?: CacheTransform<BareMetalHost>): Promise<number> {
  const before = await settledHeap();
  const ac = new AbortController();
  const informers = new SharedInformer(client.api(BareMetalHostResource, namespace), BareMetalHostResource, { namespace, ...(transform ? { transform } : {}) });
  const running = informers.run(ac.signal);
  await informers.waitForSync();
  const perHost = ((await settledHeap()) - before) / count;
  if (informers.store.size !== count) throw new Error(`informer holds ${informers.store.size} hosts, expected ${count}`);
  ac.abort();
  await running;
  return perHost;
}

export async function benchCacheMemory(client: Client, namespace: string, count: number): Promise<Row[]> {
  const text = await client.transport.requestText({
    method: 'GET',
    path: `/apis/metal3.io/v1alpha1/namespaces/${namespace}/baremetalhosts`,
    verb: 'list',
    resource: 'baremetalhosts',
  });
  const served = (JSON.parse(text) as KubeList<BareMetalHost>).items;
  if (served.length !== count) throw new Error(`expected ${count} hosts, the apiserver has ${served.length}`);
  const jsonBytes = served.reduce((sum, h) => sum + Buffer.byteLength(JSON.stringify(h)), 0) / count;

  // Ours: the shared informer's store, fed by list + watch; by default without managedFields.
  const ours = await informerHeapPerHost(client, namespace, count);
  const oursKeeping = await informerHeapPerHost(client, namespace, count, keepEverything);

  // Naive: parse every item of the list and keep it.
  const base = await settledHeap();
  const naive = new Map<string, unknown>();
  for (const item of served) naive.set(item.metadata.name!, JSON.parse(JSON.stringify(item)));
  const naivePerHost = ((await settledHeap()) - base) / count;
  if (naive.size !== count) throw new Error('naive cache lost hosts');

  return [
    { what: `JSON size of one inspected host, as served (${count} hosts)`, ours: jsonBytes / 1024, unit: 'KiB', better: 'lower' },
    { what: 'heap per cached host / its JSON size', ours: ours / jsonBytes, unit: 'x', reference: { label: 'target', value: 1.5 }, better: 'lower' },
    {
      what: 'heap per cached host',
      ours: ours / 1024,
      unit: 'KiB',
      reference: { label: 'JSON.parse kept in a Map', value: naivePerHost / 1024 },
      better: 'lower',
    },
    {
      what: 'heap per cached host, managedFields kept',
      ours: oursKeeping / 1024,
      unit: 'KiB',
      reference: { label: 'JSON.parse kept in a Map', value: naivePerHost / 1024 },
      better: 'lower',
    },
  ];
}
