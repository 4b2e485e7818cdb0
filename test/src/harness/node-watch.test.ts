// Workload Node watches on a real workload apiserver: a watch hands over the Nodes already there and
// every Node added, changed or deleted afterwards, keeps the Nodes it has seen for its client's callers,
// is shared per cluster, restarts through a rebuilt client, stops when idle and on close.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@metal3-ts/generated';
import { newNode, type Node, NodeResource } from '@metal3-ts/generated/core/v1';
import { newClient } from '@metal3-ts/shared/client/client';
import { RequestCounter } from '@metal3-ts/shared/client/metrics';
import { NodeWatches } from '@metal3-ts/shared/workload/node-watch';
import type { WorkloadCluster } from '../envtest/workload.ts';
import { withSharedEnv } from '../envtest/suite.ts';
import { eventually } from '../testing/eventually.ts';

const test = suite('workload Node watches on a real apiserver');
const env = withSharedEnv(test);
const WL = `nw-${process.pid}`;
const CLUSTER = { namespace: 'ns', name: WL };

let wl: WorkloadCluster;
let admin: Client;
const clients: Client[] = [];
const seen: { cluster: string; node: string; label?: string | undefined }[] = [];
let watches: NodeWatches;

const client = (counter?: RequestCounter) => {
  const c = newClient(wl.apiserver.admin, counter ? { counter } : {});
  clients.push(c);
  return c;
};
const names = () => seen.map((s) => s.node);

test.before(async () => {
  wl = await env().startWorkloadCluster(WL);
  admin = client();
  await admin.api(NodeResource).create(newNode({ metadata: { name: 'before' } }));
  watches = new NodeWatches(
    (cluster, node: Readonly<Node>) => seen.push({ cluster: cluster.name, node: node.metadata.name ?? '', label: node.metadata.labels?.['metal3.io/uuid'] }),
    {
      idleMs: 300,
    },
  );
});

test.after(async () => {
  await watches.close();
  for (const c of clients) c.transport.close();
  if (env().workloadClusters.has(WL)) await env().stopWorkloadCluster(WL);
});

test('a watch hands over the Nodes already there, then every Node added, changed or deleted; one watch per cluster', async () => {
  const counter = new RequestCounter();
  const through = client(counter);
  watches.ensure(CLUSTER, through);
  watches.ensure(CLUSTER, through);
  assert.is(watches.size, 1);
  await eventually('the existing Node handed over', () => (names().includes('before') ? true : undefined));
  await admin.api(NodeResource).create(newNode({ metadata: { name: 'joined' } }));
  await eventually('the new Node handed over', () => (names().includes('joined') ? true : undefined));
  await admin.api(NodeResource).mergePatch('joined', { metadata: { labels: { 'metal3.io/uuid': 'u-1' } } });
  await eventually('the labelled Node handed over', () => (seen.some((s) => s.node === 'joined' && s.label === 'u-1') ? true : undefined));
  const before = seen.length;
  await admin.api(NodeResource).delete('joined');
  await eventually('the deleted Node handed over', () => (seen.slice(before).some((s) => s.node === 'joined') ? true : undefined));
  assert.ok(seen.every((s) => s.cluster === WL));
  assert.is(counter.count({ verb: 'list', resource: 'nodes' }), 1, 'one list for the one watch');
});

test('a rebuilt client restarts the watch through it; release stops it after the idle time, ensure before that keeps it', async () => {
  const before = seen.length;
  const rebuilt = client();
  watches.ensure(CLUSTER, rebuilt);
  await eventually('the restarted watch lists again', () => (seen.slice(before).some((s) => s.node === 'before') ? true : undefined));
  watches.release(CLUSTER);
  await new Promise((r) => setTimeout(r, 100));
  watches.ensure(CLUSTER, rebuilt);
  await new Promise((r) => setTimeout(r, 400));
  assert.is(watches.size, 1, 'ensured again within the idle time: still watching');
  watches.release(CLUSTER);
  await eventually('unwatched once idle', () => (watches.size === 0 ? true : undefined));
  const after = seen.length;
  await admin.api(NodeResource).create(newNode({ metadata: { name: 'unwatched' } }));
  await new Promise((r) => setTimeout(r, 300));
  assert.is(seen.length, after, 'no Node handed over without a watch');
});

test('nodes: what the watch through that client has seen, once it has listed, kept up by its events; nothing for another client, nothing once stopped', async () => {
  const through = client();
  assert.is(watches.nodes(CLUSTER, through), undefined, 'no watch yet');
  watches.ensure(CLUSTER, through);
  await eventually('the watch listed', () => watches.nodes(CLUSTER, through));
  const kept = () => watches.nodes(CLUSTER, through) ?? [];
  const keptNames = () => kept().map((node) => node.metadata.name ?? '').sort();
  assert.equal(keptNames(), ['before', 'unwatched']);
  assert.is(watches.nodes(CLUSTER, client()), undefined, "another client's caller gets nothing from this watch");
  await admin.api(NodeResource).create(newNode({ metadata: { name: 'kept' } }));
  await eventually('a new Node kept', () => keptNames().includes('kept') || undefined);
  await admin.api(NodeResource).mergePatch('kept', { spec: { providerID: 'metal3://ns/host/m' } });
  await eventually('its change kept', () => kept().some((node) => node.spec?.providerID === 'metal3://ns/host/m') || undefined);
  await admin.api(NodeResource).delete('kept');
  await eventually('its deletion kept', () => !keptNames().includes('kept') || undefined);
  watches.stop(CLUSTER);
  assert.is(watches.nodes(CLUSTER, through), undefined, 'the kept Nodes go with the watch');
});

test("stop ends a cluster's watch at once; a later ensure starts it again", () => {
  watches.ensure(CLUSTER, client());
  assert.is(watches.size, 1);
  watches.stop(CLUSTER);
  assert.is(watches.size, 0);
  watches.stop(CLUSTER);
  watches.ensure(CLUSTER, client());
  assert.is(watches.size, 1);
});

test('close stops every watch and refuses new ones', async () => {
  watches.ensure(CLUSTER, client());
  assert.is(watches.size, 1);
  await watches.close();
  assert.is(watches.size, 0);
  watches.ensure(CLUSTER, client());
  assert.is(watches.size, 0);
});

test.run();
