// Contract cases for reads: lists filtered by label selectors (every operator) and by the name and
// namespace field selectors, in one namespace or across all, paged with limit and continue; and a
// watch from a list's resourceVersion seeing each later change once, in order.
import * as assert from 'uvu/assert';
import type { WatchEvent } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { type ContractCase, machine } from './target.ts';

const names = (list: { items: Metal3Machine[] }): string[] => list.items.map((m) => m.metadata.name ?? '').sort();

export const readCases: readonly ContractCase[] = [
  {
    name: 'list: label selectors (=, ==, !=, exists, !exists, in, notin, several at once) and the metadata.name field selector',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create(machine('a', { pool: 'x', tier: 'gold' }));
      await api.create(machine('b', { pool: 'y' }));
      await api.create(machine('c'));
      const select = async (labelSelector: string) => names(await api.list({ labelSelector }));
      assert.equal(await select('pool=x'), ['a']);
      assert.equal(await select('pool==y'), ['b']);
      assert.equal(await select('pool!=x'), ['b', 'c']);
      assert.equal(await select('pool'), ['a', 'b']);
      assert.equal(await select('!pool'), ['c']);
      assert.equal(await select('pool in (x, y)'), ['a', 'b']);
      assert.equal(await select('pool notin (x)'), ['b', 'c']);
      assert.equal(await select('pool,tier=gold'), ['a']);
      assert.equal(names(await api.list({ fieldSelector: 'metadata.name=b' })), ['b']);
      const listed = await api.list();
      assert.equal(names(listed), ['a', 'b', 'c']);
      assert.ok(listed.metadata.resourceVersion);
    },
  },
  {
    name: 'list: across all namespaces with a namespace field selector, and paged with limit and continue',
    async run({ client, namespace }) {
      const [one, two] = [await namespace(), await namespace()];
      for (const name of ['a', 'b', 'c']) await client.api(Metal3MachineResource, one).create(machine(name, { page: 'yes' }));
      await client.api(Metal3MachineResource, two).create(machine('d', { page: 'yes' }));
      const all = client.all(Metal3MachineResource);
      const everywhere = await all.list({ labelSelector: 'page' });
      assert.ok(everywhere.items.length >= 4);
      const inTwo = await all.list({ labelSelector: 'page', fieldSelector: `metadata.namespace=${two}` });
      assert.equal(inTwo.items.map((m) => `${m.metadata.namespace}/${m.metadata.name}`), [`${two}/d`]);
      const api = client.api(Metal3MachineResource, one);
      const first = await api.list({ limit: 2 });
      assert.is(first.items.length, 2);
      assert.ok(first.metadata.continue, 'a continue token while more remain');
      const second = await api.list({ limit: 2, continue: first.metadata.continue ?? '' });
      assert.is(second.items.length, 1);
      assert.not.ok(second.metadata.continue);
      assert.equal([...names(first), ...names(second)], ['a', 'b', 'c']);
    },
  },
  {
    name: 'watch from a list resourceVersion: ADDED, MODIFIED and DELETED, in order, each with the resourceVersion of its write',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create(machine('before'));
      const listed = await api.list();
      const abort = new AbortController();
      const events = api.watch({ resourceVersion: listed.metadata.resourceVersion ?? '', timeoutSeconds: 30, signal: abort.signal });
      const seen: WatchEvent<Metal3Machine>[] = [];
      const reading = (async () => {
        for await (const event of events) {
          if (event.type === 'BOOKMARK') continue;
          seen.push(event);
          if (event.type === 'DELETED') break;
        }
      })();
      const made = await api.create(machine('m'));
      const changed = await api.mergePatch('m', { metadata: { labels: { a: 'b' } } });
      await api.delete('m');
      await reading;
      abort.abort();
      assert.equal(seen.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED m', 'MODIFIED m', 'DELETED m']);
      assert.is(seen[0]?.object.metadata.resourceVersion, made.metadata.resourceVersion);
      assert.is(seen[1]?.object.metadata.resourceVersion, changed.metadata.resourceVersion);
      assert.is(seen[1]?.object.metadata.labels?.['a'], 'b');
    },
  },
  {
    name:
      'watch with a label selector and no resourceVersion: ADDED for each current match first; an object entering the selector is ADDED, one leaving it DELETED',
    async run({ client, namespace }) {
      const api = client.api(Metal3MachineResource, await namespace());
      await api.create(machine('in', { watched: 'yes' }));
      await api.create(machine('out'));
      const abort = new AbortController();
      const seen: string[] = [];
      let opened = () => {};
      const firstEvent = new Promise<void>((resolve) => (opened = resolve));
      const reading = (async () => {
        for await (const event of api.watch({ labelSelector: 'watched=yes', timeoutSeconds: 30, signal: abort.signal })) {
          if (event.type === 'BOOKMARK') continue;
          seen.push(`${event.type} ${event.object.metadata.name}`);
          opened();
          if (seen.length === 3) break;
        }
      })();
      // Without a resourceVersion the watch starts wherever the server is when it opens: change
      // nothing before its first event says it is open.
      await Promise.race([firstEvent, reading]);
      await api.mergePatch('out', { metadata: { labels: { watched: 'yes' } } });
      await api.mergePatch('in', { metadata: { labels: { watched: null } } });
      await reading;
      abort.abort();
      assert.equal(seen, ['ADDED in', 'ADDED out', 'DELETED in']);
    },
  },
];
