// Host claims racing on the fake apiserver (phase level, milliseconds): many claimers deciding on
// the same listed copies, writers changing or deleting a host between the list and the claim. The
// fake's 409 on a stale resourceVersion is what the claim's lock relies on; the contract suite
// (testing/fake-client/contract) shows the real apiserver answers the same.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BareMetalHost, BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { fakeCluster } from '@metal3-ts/shared/testing/fake-client/index';
import { claimHost, type ClaimOutcome } from './claim.ts';
import { machineRef, testHost } from './testing.ts';

const test = suite('host claims racing on the fake apiserver');

async function hostsIn(names: string[]) {
  const cluster = fakeCluster();
  const hosts = cluster.client.api(BareMetalHostResource, 'ns');
  for (const name of names) await hosts.create(testHost(name));
  return { ...cluster, hosts, listed: (await hosts.list()).items };
}

const consumerOf = (host: BareMetalHost | undefined) => host?.spec?.consumerRef?.name;

test('M-22 M-24: eight machines claim three hosts from one stale list at once: one winner per host, every loser told by an outcome', async () => {
  const { hosts, listed, newClient } = await hostsIn(['h-0', 'h-1', 'h-2']);
  const machines = Array.from({ length: 8 }, (_, i) => machineRef(`m-${i}`, 'ns', `uid-m-${i}`));
  const outcomes: ClaimOutcome[] = await Promise.all(machines.map((consumer, i) => claimHost(newClient(), listed[i % 3] as BareMetalHost, { consumer })));

  const winners = outcomes.flatMap((o, i) => (o.claimed ? [{ machine: `m-${i}`, host: o.host.metadata.name ?? '' }] : []));
  assert.is(winners.length, 3, 'one winner per host');
  assert.equal(winners.map((w) => w.host).sort(), ['h-0', 'h-1', 'h-2']);
  for (const o of outcomes) if (!o.claimed) assert.is(o.reason, 'taken');
  for (const { machine, host } of winners) {
    const stored = await hosts.get(host);
    assert.is(consumerOf(stored), machine, `${host} is held by its winner`);
    assert.equal(stored.metadata.ownerReferences?.map((r) => [r.name, r.controller]), [[machine, true]]);
  }
});

test('M-22: a host written by someone else between the list and the claim is a conflict with the fresh copy; claiming that copy wins', async () => {
  const { hosts, listed, client } = await hostsIn(['h-0']);
  await hosts.mergePatch('h-0', { metadata: { labels: { rack: 'r1' } } });
  const consumer = machineRef('m-0', 'ns', 'uid-m-0');
  const first = await claimHost(client, listed[0] as BareMetalHost, { consumer });
  assert.is(first.claimed, false);
  if (first.claimed || first.reason !== 'conflict') return assert.unreachable(`expected a conflict, got ${JSON.stringify(first)}`);
  assert.is(first.host.metadata.labels?.['rack'], 'r1');
  const second = await claimHost(client, first.host, { consumer });
  assert.ok(second.claimed && second.changed);
  assert.is(consumerOf(await hosts.get('h-0')), 'm-0');
});

test('M-22: a host deleted between the list and the claim is gone, and nothing is recreated', async () => {
  const { hosts, listed, client } = await hostsIn(['h-0']);
  await hosts.delete('h-0');
  const outcome = await claimHost(client, listed[0] as BareMetalHost, { consumer: machineRef('m-0', 'ns', 'uid-m-0') });
  assert.equal(outcome, { claimed: false, reason: 'gone' });
  assert.equal((await hosts.list()).items, []);
});

test('M-24: re-claiming a host the machine already holds sends nothing', async () => {
  const { hosts, listed, client, server } = await hostsIn(['h-0']);
  const consumer = machineRef('m-0', 'ns', 'uid-m-0');
  const first = await claimHost(client, listed[0] as BareMetalHost, { consumer });
  assert.ok(first.claimed);
  const revision = server.store.revision;
  const again = await claimHost(client, await hosts.get('h-0'), { consumer });
  assert.ok(again.claimed && !again.changed);
  assert.is(server.store.revision, revision, 'no write reached the server');
});

test.run();
