// The harness's own informer (paginated list, then watch from the list's resourceVersion) running
// on the fake apiserver: what licenses a controller-level test on the fake beyond single phases.
// Waits on the informer's events, never on time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource, newMetal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { InformerFactory } from '../../cache/informer-factory.ts';
import type { CacheEvent } from '../../cache/types.ts';
import { fakeCluster } from './transport.ts';

const test = suite('the shared informer on the fake apiserver');
const machine = (name: string) => newMetal3Machine({ metadata: { name }, spec: {} });

test('syncs from a list, then sees each write as add, update and delete, in order', async () => {
  const { client } = fakeCluster();
  const api = client.api(Metal3MachineResource, 'ns');
  await api.create(machine('listed'));
  const factory = new InformerFactory(client);
  const informer = factory.informerFor(Metal3MachineResource);
  const stop = new AbortController();
  const running = factory.start(stop.signal);
  await factory.waitForSync();
  assert.ok(informer.store.get({ namespace: 'ns', name: 'listed' }));

  const events: CacheEvent<Metal3Machine>[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  informer.subscribe((event) => {
    events.push(event);
    for (const w of waiting) if (events.length >= w.count) w.resolve();
  });
  /** Resolves once `count` events have arrived. */
  const seen = (count: number) =>
    new Promise<void>((resolve) => {
      if (events.length >= count) resolve();
      else waiting.push({ count, resolve });
    });

  await seen(1); // the late subscriber's add of what is cached
  await api.create(machine('m'));
  await api.mergePatch('m', { metadata: { labels: { a: 'b' } } });
  await api.delete('m');
  await seen(4);
  assert.equal(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['add listed', 'add m', 'update m', 'delete m']);
  assert.is(informer.store.get({ namespace: 'ns', name: 'm' }), undefined);
  stop.abort();
  await running;
});

test('a watch with a selector the apiserver would refuse fails as a typed 400, not a crash', async () => {
  const { client } = fakeCluster();
  try {
    for await (const _ of client.api(Metal3MachineResource, 'ns').watch({ labelSelector: 'a in b' })) break;
    assert.unreachable('the watch opened');
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 400);
  }
});

test.run();
