import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ObjectMeta } from '@metal3-ts/generated';
import {
  Metal3DataClaimResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3DataClaim,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type BareMetalHost, BareMetalHostResource, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { newLogger } from '../log/logger.ts';
import { Registry } from '../metrics/registry.ts';
import { type ReconcileContext, type Request, requestKey, type Result } from '../reconcile/reconcile.ts';
import { FakeInformer, FakeInformerSource } from '../testing/fake-informer.ts';
import { ControllerBuildError, controllerFor } from './builder.ts';
import type { Controller } from './controller.ts';
import { generationChanged, resourceNotPausedAndHasFilterLabel } from './predicates.ts';

const test = suite('controller builder');

const flush = () => new Promise<void>((r) => setTimeout(r, 0));
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await flush();
}

const machine = (name: string, meta: Partial<ObjectMeta> = {}): Metal3Machine =>
  newMetal3Machine({ metadata: { namespace: 'ns', name, generation: 1, ...meta }, spec: {} });
const claimOf = (owner: string, meta: Partial<ObjectMeta> = {}) =>
  newMetal3DataClaim({
    metadata: {
      namespace: 'ns',
      name: `${owner}-claim`,
      ownerReferences: [{ apiVersion: Metal3MachineResource.apiVersion, kind: 'Metal3Machine', name: owner, uid: 'u', controller: true }],
      ...meta,
    },
    spec: { template: { name: 't' } },
  });
const host = (name: string, consumer: string | undefined, meta: Partial<ObjectMeta> = {}): BareMetalHost =>
  newBareMetalHost({
    metadata: { namespace: 'ns', name, ...meta },
    spec: { online: true, ...(consumer ? { consumerRef: { kind: 'Metal3Machine', namespace: 'ns', name: consumer } } : {}) },
  });
const hostToMachine = (h: Readonly<BareMetalHost>): Request[] => {
  const ref = h.spec?.consumerRef;
  return ref?.kind === 'Metal3Machine' && ref.name ? [{ namespace: ref.namespace ?? h.metadata.namespace!, name: ref.name }] : [];
};

function harness(wire: (b: ReturnType<typeof controllerFor<Metal3Machine>>) => void, informerOptions = {}) {
  const informers = new FakeInformerSource(informerOptions);
  const reconciled: string[] = [];
  const builder = controllerFor('metal3machine', Metal3MachineResource, { informers, registry: new Registry() });
  wire(builder);
  const controller = builder.build((request: Request, _ctx: ReconcileContext): Promise<Result> => {
    reconciled.push(requestKey(request));
    return Promise.resolve({});
  });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  return {
    informers,
    controller,
    reconciled,
    machines: informers.informerFor(Metal3MachineResource),
    claims: informers.informerFor(Metal3DataClaimResource),
    hosts: informers.informerFor(BareMetalHostResource),
    /** Runs the pending reconciles, then returns and clears what was reconciled. */
    async take(): Promise<string[]> {
      await settle();
      return reconciled.splice(0);
    },
    async shutdown(): Promise<void> {
      stop.abort();
      await running;
    },
  };
}

test('primary events reconcile the object; objects present before start are reconciled once', async () => {
  const informers = new FakeInformerSource();
  informers.informerFor(Metal3MachineResource).create(machine('early'));
  const seen: string[] = [];
  const controller: Controller = controllerFor('m3m', Metal3MachineResource, { informers }).build((r) => {
    seen.push(requestKey(r));
    return Promise.resolve({});
  });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  await settle();
  informers.informerFor(Metal3MachineResource).create(machine('late'));
  await settle();
  informers.informerFor(Metal3MachineResource).delete({ namespace: 'ns', name: 'late' });
  await settle();
  assert.equal(seen, ['ns/early', 'ns/late', 'ns/late']);
  stop.abort();
  await running;
});

test('owns: a change to an owned object reconciles its controller owner', async () => {
  const h = harness((b) => b.owns(Metal3DataClaimResource));
  h.claims.create(claimOf('m1'));
  h.claims.create({ ...claimOf('m2'), metadata: { ...claimOf('m2').metadata, ownerReferences: [] } });
  assert.equal(await h.take(), ['ns/m1']);
  await h.shutdown();
});

test('watches: a BareMetalHost event reconciles its consumer through the map function (M-7)', async () => {
  const h = harness((b) => b.watches(BareMetalHostResource, hostToMachine));
  h.hosts.create(host('h0', 'm1'));
  h.hosts.create(host('h1', undefined));
  assert.equal(await h.take(), ['ns/m1']);
  h.hosts.update(host('h0', 'm2'));
  assert.equal((await h.take()).sort(), ['ns/m1', 'ns/m2'], 'old and new consumer');
  await h.shutdown();
});

test("watches an informer the controller chose (a projection): its events map, and the kind's own informer is not asked for", async () => {
  const chosen = new FakeInformer(BareMetalHostResource);
  const h = harness((b) => b.watches(chosen, hostToMachine));
  chosen.create(host('h0', 'm1'));
  assert.equal(await h.take(), ['ns/m1']);
  h.hosts.create(host('h1', 'm2'));
  assert.equal(await h.take(), [], "the kind's own informer is not watched");
  await h.shutdown();
});

test('E-20: the event filter applies to every source, judged on the source object', async () => {
  const paused = { annotations: { 'cluster.x-k8s.io/paused': '' } };
  const blue = { labels: { 'cluster.x-k8s.io/watch-filter': 'blue' } };
  const h = harness((b) =>
    b
      .owns(Metal3DataClaimResource)
      .watches(BareMetalHostResource, hostToMachine)
      .withEventFilter(resourceNotPausedAndHasFilterLabel('blue'))
  );
  h.machines.create(machine('unlabelled'));
  h.machines.create(machine('m-paused', { ...blue, ...paused }));
  h.hosts.create(host('h-unlabelled', 'via-host'));
  h.hosts.create(host('h-paused', 'via-paused-host', { ...blue, ...paused }));
  h.claims.create(claimOf('via-unlabelled-claim'));
  assert.equal(await h.take(), [], 'nothing without the label, nothing paused');
  h.machines.create(machine('m-blue', blue));
  h.hosts.create(host('h-blue', 'via-blue-host', blue));
  h.claims.create(claimOf('via-blue-claim', blue));
  assert.equal((await h.take()).sort(), ['ns/m-blue', 'ns/via-blue-claim', 'ns/via-blue-host']);
  await h.shutdown();
});

test('withPredicates filters only the primary kind: a status-only write is ignored, an owned change still counts', async () => {
  const h = harness((b) => b.withPredicates(generationChanged).owns(Metal3DataClaimResource));
  h.machines.create(machine('m1'));
  assert.equal(await h.take(), ['ns/m1']);
  h.machines.update({ ...machine('m1'), status: { ready: true } });
  assert.equal(await h.take(), [], 'same generation');
  h.machines.update(machine('m1', { generation: 2 }));
  assert.equal(await h.take(), ['ns/m1']);
  h.claims.create(claimOf('m1'));
  assert.equal(await h.take(), ['ns/m1']);
  h.claims.update({ ...claimOf('m1'), status: { errorMessage: 'x' } });
  assert.equal(await h.take(), ['ns/m1'], 'owned events are not subject to the primary predicates');
  await h.shutdown();
});

test('workers wait for every informer to sync before reconciling', async () => {
  const h = harness((b) => b.watches(BareMetalHostResource, hostToMachine), { synced: false });
  h.machines.create(machine('m1'));
  h.hosts.create(host('h0', 'm2'));
  assert.equal(await h.take(), []);
  h.machines.markSynced();
  assert.equal(await h.take(), [], 'the host informer is still listing');
  h.hosts.markSynced();
  assert.equal((await h.take()).sort(), ['ns/m1', 'ns/m2']);
  await h.shutdown();
});

test('stopping unsubscribes from every informer; a stop during sync resolves without reconciling', async () => {
  const h = harness((b) => b.owns(Metal3DataClaimResource));
  assert.is(h.machines.subscribers + h.claims.subscribers, 2);
  await h.shutdown();
  assert.is(h.machines.subscribers + h.claims.subscribers, 0);
  const unsynced = harness(() => {}, { synced: false });
  unsynced.machines.create(machine('m1'));
  await unsynced.shutdown();
  assert.equal(unsynced.reconciled, []);
  assert.is(unsynced.machines.subscribers, 0);
});

test('a throwing map function costs its event only, and is logged', async () => {
  const lines: Record<string, unknown>[] = [];
  const informers = new FakeInformerSource();
  const seen: string[] = [];
  const controller = controllerFor('m3m', Metal3MachineResource, {
    informers,
    log: newLogger({ sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) }),
  })
    .watches(BareMetalHostResource, (h) => {
      if (h.metadata.name === 'bad') throw new TypeError('no consumer');
      return hostToMachine(h);
    })
    .build((r) => {
      seen.push(requestKey(r));
      return Promise.resolve({});
    });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  informers.informerFor(BareMetalHostResource).create(host('bad', 'x'));
  informers.informerFor(BareMetalHostResource).create(host('good', 'm1'));
  await settle();
  assert.equal(seen, ['ns/m1']);
  const line = lines.find((l) => l.msg === 'event handler failed')!;
  assert.equal([line.kind, line.name, line.error], ['BareMetalHost', 'bad', 'TypeError: no consumer']);
  stop.abort();
  await running;
});

test('an object with a reconcile method works as the reconciler; enqueue adds a request by hand', async () => {
  const informers = new FakeInformerSource();
  const seen: string[] = [];
  const reconciler = {
    prefix: 'r:',
    reconcile(r: Request): Promise<Result> {
      seen.push(this.prefix + requestKey(r));
      return Promise.resolve({});
    },
  };
  const controller = controllerFor('m3m', Metal3MachineResource, { informers }).build(reconciler);
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  controller.enqueue({ namespace: 'other', name: 'x' });
  await settle();
  assert.equal(seen, ['r:other/x']);
  stop.abort();
  await running;
});

test('watchesEvents: the handler sees whole events (an update with its old object) and what it answers is reconciled', async () => {
  const types: string[] = [];
  const h = harness((b) =>
    b.watchesEvents(BareMetalHostResource, (event) => {
      types.push(event.type === 'update' ? `update:${event.old.spec?.consumerRef?.name ?? '-'}>${event.object.spec?.consumerRef?.name ?? '-'}` : event.type);
      return event.type === 'update' && !event.old.spec?.consumerRef ? hostToMachine(event.object) : [];
    })
  );
  h.hosts.create(host('h1', undefined));
  h.hosts.update(host('h1', 'm1'));
  h.hosts.update(host('h1', 'm2'));
  assert.equal(await h.take(), ['ns/m1'], 'only the claim of a free host, as the handler decided');
  assert.equal(types, ['add', 'update:->m1', 'update:m1>m2']);
  await h.shutdown();
});

test("watchesEvents of an informer the controller chose: its events reach the handler, the kind's own informer's do not", async () => {
  const chosen = new FakeInformer(BareMetalHostResource);
  const h = harness((b) => b.watchesEvents(chosen, (event) => hostToMachine(event.object)));
  chosen.create(host('h0', 'm1'));
  assert.equal(await h.take(), ['ns/m1']);
  h.hosts.create(host('h1', 'm2'));
  assert.equal(await h.take(), [], "the kind's own informer is not watched");
  await h.shutdown();
});

test('watchesRawSource: requests a raw source delivers are reconciled, waited for before workers start, and it is unsubscribed at stop', async () => {
  const informers = new FakeInformerSource();
  const seen: string[] = [];
  let deliver: ((r: Request) => void) | undefined;
  let synced!: () => void;
  const sync = new Promise<void>((resolve) => (synced = resolve));
  let unsubscribed = 0;
  const controller = controllerFor('m3m', Metal3MachineResource, { informers })
    .withEventFilter({ create: () => false, update: () => false, delete: () => false }) // for informer sources only: the raw source decides alone
    .watchesRawSource({
      kind: 'Node',
      waitForSync: () => sync,
      subscribe(enqueue) {
        deliver = enqueue;
        return () => unsubscribed++;
      },
    })
    .build((r) => {
      seen.push(requestKey(r));
      return Promise.resolve({});
    });
  const stop = new AbortController();
  const running = controller.start(stop.signal);
  deliver!({ namespace: 'ns', name: 'early' });
  await settle();
  assert.equal(seen, [], 'no worker before the raw source synced');
  synced();
  await settle();
  deliver!({ namespace: 'ns', name: 'late' });
  await settle();
  assert.equal(seen, ['ns/early', 'ns/late']);
  stop.abort();
  await running;
  assert.is(unsubscribed, 1);
});

test('build reports every wiring problem at once', () => {
  const informers = new FakeInformerSource();
  try {
    controllerFor('Bad Name', Metal3MachineResource, { informers })
      .watches(BareMetalHostResource, undefined as unknown as (h: KubeObject) => Request[])
      .withOptions({ maxConcurrentReconciles: 0, reconcileTimeoutMs: -1 })
      .build({} as never);
    assert.unreachable('build must fail');
  } catch (error) {
    assert.instance(error, ControllerBuildError);
    const problems = (error as ControllerBuildError).problems;
    assert.is(problems.length, 5, problems.join('\n'));
    for (const word of ['map function', 'name', 'reconciler', 'maxConcurrentReconciles', 'reconcileTimeoutMs']) {
      assert.ok(problems.some((p) => p.includes(word)), word);
    }
  }
  assert.is(informers.informers.length, 0, 'a failed build requests no informer');
  const builder = controllerFor('ok', Metal3MachineResource, { informers });
  builder.build(() => Promise.resolve({}));
  assert.throws(() => builder.build(() => Promise.resolve({})), /already called/);
});

test.run();
