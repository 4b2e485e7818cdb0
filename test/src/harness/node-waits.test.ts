// Keyed waits on workload Nodes (shared/workload/node-waits.ts) on a real workload apiserver: a Node
// event reaches the EventSource as a request for exactly the waiters of the keys it shows, the observe
// hook sees every event first and may drop it, each list wakes the waiters it shows no key of (a
// Node deleted before the list), and the cluster's client is handed back while its watch runs.
// "Nobody else woken" is checked behind a fence: a later Node whose own waiter is woken (a watch
// delivers in order), never by waiting for a while.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { newNode, NodeResource } from '@metal3-ts/generated/core/v1';
import { newClient } from '@metal3-ts/shared/client/client';
import { silentLogger } from '@metal3-ts/shared/log/logger';
import { NodeWaits } from '@metal3-ts/shared/workload/node-waits';
import type { WorkloadCluster } from '../envtest/workload.ts';
import { withSharedEnv } from '../envtest/suite.ts';
import { eventually } from '../testing/eventually.ts';

const test = suite('keyed waits on workload Nodes on a real apiserver');
const env = withSharedEnv(test);
const WL = `nwait-${process.pid}`;
const CLUSTER = { namespace: 'ns', name: WL };

let wl: WorkloadCluster;
let admin: Client;
const clients: Client[] = [];
const woken: string[] = [];
const observed: { node: string; deleted: boolean }[] = [];
let waits: NodeWaits;
let unsubscribe: () => void;

const client = () => {
  const c = newClient(wl.apiserver.admin);
  clients.push(c);
  return c;
};
const create = (name: string, labels: Record<string, string> = {}) => admin.api(NodeResource).create(newNode({ metadata: { name, labels } }));
/** Registers `waiter` for Node `name`, creates that Node and waits for the waiter to be woken: every earlier event has been handled. */
const fence = async (waiter: string, name: string) => {
  waits.wait(waiter, CLUSTER, [name]);
  await create(name);
  await eventually(`${waiter} woken by Node ${name}`, () => (woken.includes(waiter) ? true : undefined));
};

test.before(async () => {
  wl = await env().startWorkloadCluster(WL);
  admin = client();
  waits = new NodeWaits({
    idleMs: 300,
    observe: (_, node, deleted) => {
      observed.push({ node: node.metadata.name ?? '', deleted });
      return node.metadata.labels?.quiet !== 'true';
    },
  });
  unsubscribe = waits.source.subscribe((request) => woken.push(`${request.namespace}/${request.name}`), silentLogger);
});

test.after(async () => {
  unsubscribe();
  for (const c of clients) c.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

test('a Node wakes exactly the waiters of its name; one an observe hook drops wakes nobody', async () => {
  const through = client();
  waits.wait('ns/r1', CLUSTER, ['n1'], through);
  waits.wait('ns/r2', CLUSTER, ['n2', 'n2-alias']);
  assert.is(waits.clientOf(CLUSTER), through, 'the running watch hands its client back');
  await eventually('both woken by the first list, which shows neither Node', () => (['ns/r1', 'ns/r2'].every((w) => woken.includes(w)) ? true : undefined));
  const listed = woken.length;
  await create('n1');
  await eventually('r1 woken by its Node', () => (woken.slice(listed).includes('ns/r1') ? true : undefined));
  await create('n2', { quiet: 'true' });
  await fence('ns/f1', 'fence-1');
  assert.ok(observed.some((o) => o.node === 'n2'), 'the hook saw the dropped Node');
  assert.not.ok(woken.slice(listed).includes('ns/r2'), 'neither n1 nor the dropped n2 woke r2');
  await admin.api(NodeResource).delete('n1');
  await eventually('the deletion handed to the hook', () => (observed.some((o) => o.node === 'n1' && o.deleted) ? true : undefined));
  await eventually('r1 woken again by its Node deleted', () => (woken.slice(listed).filter((w) => w === 'ns/r1').length >= 2 ? true : undefined));
});

test("a new wait replaces a waiter's keys; forget of the cluster's last waiter says so and drops its client", async () => {
  const before = woken.length;
  waits.wait('ns/r2', CLUSTER, ['n3']);
  await create('n2-alias');
  await create('n3');
  await eventually('r2 woken by its new key', () => (woken.slice(before).includes('ns/r2') ? true : undefined));
  assert.is(woken.slice(before).filter((w) => w === 'ns/r2').length, 1, 'not by its old key n2-alias, handed over before n3');
  for (const waiter of ['ns/r1', 'ns/r2']) assert.is(waits.forget(waiter), undefined, 'f1 still waits');
  assert.equal(waits.forget('ns/f1'), CLUSTER);
  assert.is(waits.clientOf(CLUSTER), undefined);
});

test('a Node deleted before a watch lists wakes its waiter: the list does not show it (no event could)', async () => {
  const quiet = { namespace: 'ns', name: `${WL}-gap` };
  await create('gone');
  await admin.api(NodeResource).delete('gone');
  const before = woken.length;
  waits.wait('ns/r4', quiet, ['gone'], client());
  waits.wait('ns/r5', quiet, ['fence-1']);
  await eventually('r4 woken by the first list', () => (woken.slice(before).includes('ns/r4') ? true : undefined));
  await eventually('r5 woken by its Node listed', () => (woken.slice(before).includes('ns/r5') ? true : undefined));
  assert.is(woken.slice(before).filter((w) => w === 'ns/r5').length, 1, 'r5 only once: the list shows its key');
  for (const waiter of ['ns/r4', 'ns/r5']) waits.forget(waiter);
});

test('distrust withholds the client until watch() brings another; unsubscribing stops every watch', () => {
  const first = client();
  waits.watch(CLUSTER, first);
  assert.is(waits.clientOf(CLUSTER), first);
  waits.distrust(CLUSTER);
  assert.is(waits.clientOf(CLUSTER), undefined);
  const rebuilt = client();
  waits.watch(CLUSTER, rebuilt);
  assert.is(waits.clientOf(CLUSTER), rebuilt);
  unsubscribe();
  assert.is(waits.clientOf(CLUSTER), undefined, 'no watch runs any more');
});

test.run();
