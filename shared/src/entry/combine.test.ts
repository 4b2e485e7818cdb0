// combineEntries and the IndexLedger without a cluster (the all-in-one bundle against a real apiserver
// is controllers/all-in-one/test): merged flags, each entry's own flags, one informer per kind across
// entries, and an index name two entries file with different functions refused at start-up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, type Transport } from '@metal3-ts/generated';
import { ConfigMapResource } from '@metal3-ts/generated/core/v1';
import { InformerFactory } from '../cache/informer-factory.ts';
import { FakeTransport } from '../cache/testing/fake-transport.ts';
import { combineEntries, EntryFlagClashError, mergeEntryFlags } from './combine.ts';
import { controllerEntry } from './entry.ts';
import { flag, type FlagSpecs } from './flags.ts';
import { IndexClashError, IndexLedger, ledgeredInformers } from './index-ledger.ts';
import type { MainDeps } from './run-main.ts';

const test = suite('combineEntries');
const byName = () => ['x'];

test('flags: the union; a name two entries declare alike is one flag', () => {
  const a = controllerEntry({ name: 'a', flags: { 'a-concurrency': flag.int(0, 'a'), shared: flag.int(0, 'a side') }, register() {} });
  const b = controllerEntry({ name: 'b', flags: { shared: flag.int(0, 'b side') }, register() {} });
  assert.equal(Object.keys(mergeEntryFlags([a, b] as never)).sort(), ['a-concurrency', 'shared']);
});

test('flags: a name declared with two defaults or types is refused, naming both entries', () => {
  const a = controllerEntry({ name: 'a', flags: { shared: flag.int(0, 'a') }, register() {} });
  const b = controllerEntry({ name: 'b', flags: { shared: flag.bool(false, 'b') }, register() {} });
  assert.throws(() => mergeEntryFlags([a, b] as never), (e: unknown) => e instanceof EntryFlagClashError && /--shared is declared by a and b/.test(e.message));
});

function deps(factory: InformerFactory, flags: Record<string, unknown>): MainDeps<FlagSpecs> {
  return { informers: factory, flags, log: { info() {} } } as unknown as MainDeps<FlagSpecs>;
}

test('register: each entry sees only its own flags and the same informer per kind', async () => {
  const factory = new InformerFactory(new Client(new FakeTransport() as unknown as Transport));
  const seen: Record<string, unknown>[] = [];
  const informers: unknown[] = [];
  const entry = (name: string, own: FlagSpecs) =>
    controllerEntry<FlagSpecs>({
      name,
      flags: own,
      register(d) {
        seen.push({ ...d.flags });
        const i = d.informers.informerFor(ConfigMapResource);
        i.addIndex('by-name', byName);
        informers.push(i.store);
      },
    });
  const all = combineEntries('all', [entry('a', { 'a-only': flag.int(1, 'a') }), entry('b', { 'b-only': flag.int(2, 'b') })]);
  await all.register(deps(factory, { 'a-only': 10, 'b-only': 20 }));
  assert.equal(seen, [{ 'a-only': 10 }, { 'b-only': 20 }]);
  assert.is(informers[0], informers[1], 'one store for the kind');
});

test('IndexLedger: one owner repeating itself or two sharing a function pass; two functions under one name clash', () => {
  const ledger = new IndexLedger();
  ledger.file('v1/ConfigMap', 'i', byName, 'a');
  ledger.file('v1/ConfigMap', 'i', () => [], 'a');
  ledger.file('v1/ConfigMap', 'i', byName, 'b');
  ledger.file('v1/Secret', 'i', () => [], 'b');
  assert.throws(() => ledger.file('v1/ConfigMap', 'i', () => [], 'c'), (e: unknown) => e instanceof IndexClashError && /filed by a and by c/.test(e.message));
});

test('ledgeredInformers: addIndex goes through the ledger; everything else is the factory', () => {
  const factory = new InformerFactory(new Client(new FakeTransport() as unknown as Transport));
  const ledger = new IndexLedger();
  ledgeredInformers(factory, 'a', ledger).informerFor(ConfigMapResource).addIndex('i', byName);
  const b = ledgeredInformers(factory, 'b', ledger);
  assert.throws(() => b.informerFor(ConfigMapResource).addIndex('i', () => []), (e: unknown) => e instanceof IndexClashError);
  assert.ok(b.existing(ConfigMapResource), 'factory methods reach the factory');
  assert.is(b.hasSynced(), false);
});

test.run();
