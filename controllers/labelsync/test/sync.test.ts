// Label sync against a real kube-apiserver and a real workload kube-apiserver (the workload-cluster
// simulator, whose kubelet registers the host's Node): labels under the Metal3Cluster's prefixes reach
// the Node and leave it, other labels stay, Node-side drift is reverted by the Node watch, a bad
// prefix is an event (no failed reconcile), and a controller with nothing to change sends nothing.
// One scene for the file (a workload apiserver is expensive); the tests run in order on it.
import * as assert from 'uvu/assert';
import { EventResource, type Node } from '@metal3-ts/generated/core/v1';
import { Metal3ClusterResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { ClusterCache } from '@metal3-ts/shared/workload/cluster-cache';
import type { RunningSimulators } from '@metal3-ts/test/sim/simulator';
import { controllerSuite } from '@metal3-ts/test/testing/controller-suite';
import { INVALID_PREFIX_REASON, LABEL_SYNC_PREFIXES_ANNOTATION } from '../src/names.ts';
import {
  CLUSTER,
  createScene,
  eventually,
  HOST,
  nodeWhen,
  patchHostLabels,
  requestsBut,
  type RunningController,
  setNodeRef,
  startLabelSyncController,
  startWorkloadWorld,
  workloadNodes,
} from './support.ts';

const s = controllerSuite('label sync: BareMetalHost labels onto the workload Node (LS-1…LS-8)');
const { test } = s;
const PREFIXES = 'my.org, team.example.com';

let ns = '';
let world: RunningSimulators | undefined;
let controller: RunningController | undefined;
let cache: ClusterCache | undefined;
let nodes: Awaited<ReturnType<typeof workloadNodes>>;

test.before(async () => {
  ns = await s.namespace('labelsync');
  world = await startWorkloadWorld(s.env(), ns);
  controller = await startLabelSyncController(s.env(), ns);
});

test.after(async () => {
  await controller?.stop();
  cache?.close();
  await world?.stop();
  if (controller) {
    assert.is(controller.counter.count({ code: 403 }), 0, 'no request was forbidden by deploy/rbac.yaml');
    assert.is(controller.errors(), 0, 'no reconcile failed');
  }
});

const running = () => controller!;
const labelsOf = (node: Node) => node.metadata.labels ?? {};
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1] ?? NaN;

test('LS-3, LS-6: the Machine getting its nodeRef wakes the host (no 30 s requeue); labels under the prefixes reach the Node, others stay', async () => {
  const admin = s.admin();
  await createScene(admin, ns, PREFIXES, { 'my.org/rack': 'r12', 'team.example.com/owner': 'ops', env: 'prod', 'other.io/zone': 'z' });
  cache = new ClusterCache(admin, { closeGraceMs: 50 });
  nodes = await workloadNodes(cache, ns);
  const registered = await nodeWhen(nodes, HOST, 'the kubelet registered the Node', () => true, 60_000);
  assert.is(labelsOf(registered)['my.org/rack'], undefined, 'nothing synced before the Machine has a nodeRef');
  await setNodeRef(admin, ns, HOST);
  const start = performance.now();
  const synced = await nodeWhen(
    nodes,
    HOST,
    'the prefixed labels on the Node',
    (n) => labelsOf(n)['team.example.com/owner'] === 'ops' && labelsOf(n)['my.org/rack'] === 'r12',
  );
  console.log(`  nodeRef set → labels on the Node: ${(performance.now() - start).toFixed(0)} ms`);
  const labels = labelsOf(synced);
  assert.is(labels['env'], undefined, 'an unprefixed host label is never synced');
  assert.is(labels['other.io/zone'], undefined, 'a label of another prefix is never synced');
  assert.is(labels['kubernetes.io/hostname'], labelsOf(registered)['kubernetes.io/hostname'], "the kubelet's labels stay");
});

test('LS-6 event driven: 20 labels added on the host reach the Node and 20 removed leave it, each within 2 s (p99 printed)', async () => {
  const admin = s.admin();
  const added: number[] = [];
  const removed: number[] = [];
  for (let i = 0; i < 20; i++) {
    const key = `my.org/seq-${i}`;
    let start = performance.now();
    await patchHostLabels(admin, ns, { [key]: `v${i}` });
    await nodeWhen(nodes, HOST, `${key} on the Node`, (n) => labelsOf(n)[key] === `v${i}`);
    added.push(performance.now() - start);
    start = performance.now();
    await patchHostLabels(admin, ns, { [key]: null });
    const node = await nodeWhen(nodes, HOST, `${key} gone from the Node`, (n) => labelsOf(n)[key] === undefined);
    removed.push(performance.now() - start);
    assert.is(labelsOf(node)['my.org/rack'], 'r12', 'the other synced labels stay');
    assert.ok(labelsOf(node)['kubernetes.io/hostname'], "the kubelet's labels stay");
  }
  const [addP99, removeP99] = [p99(added), p99(removed)];
  console.log(
    `  host label → Node over 20 changes: added p99 ${addP99.toFixed(0)} ms (max ${Math.max(...added).toFixed(0)}), removed p99 ${
      removeP99.toFixed(0)
    } ms (max ${Math.max(...removed).toFixed(0)})`,
  );
  assert.ok(addP99 < 2_000, `added p99 ${addP99.toFixed(0)} ms < 2 s`);
  assert.ok(removeP99 < 2_000, `removed p99 ${removeP99.toFixed(0)} ms < 2 s`);
});

test('LS-7 changed: drift on the Node is reverted by the Node watch, not a 60 s resync; labels outside the prefixes stay', async () => {
  await nodes.mergePatch(HOST, { metadata: { labels: { 'my.org/rack': 'wrong', 'my.org/stale': 'x', 'ops.example/keep': 'yes' } } });
  const node = await nodeWhen(nodes, HOST, 'the drift reverted', (n) => labelsOf(n)['my.org/rack'] === 'r12' && labelsOf(n)['my.org/stale'] === undefined);
  assert.is(labelsOf(node)['ops.example/keep'], 'yes', 'a label under no configured prefix is left alone');
});

test('E-38 changed: 0 requests to either apiserver while nothing changes (a host change outside the prefixes, a Node change outside its labels), bounded by a later change', async () => {
  const admin = s.admin();
  await nodeWhen(nodes, HOST, 'the Node in sync', (n) => labelsOf(n)['my.org/rack'] === 'r12');
  const reconciles = running().reconciles();
  const before = requestsBut(running());
  // Changes that wake the controller but need nothing: a host label outside the prefixes, a Node annotation.
  await patchHostLabels(admin, ns, { env: 'staging' });
  await nodes.mergePatch(HOST, { metadata: { annotations: { 'example.com/touched': 'yes' } } });
  await eventually('the host change reconciled', () => (running().reconciles() > reconciles ? true : undefined));
  // The step is bounded by a real change: its reconcile runs after the quiet ones, and is the only request.
  await patchHostLabels(admin, ns, { 'my.org/marker': 'm' });
  await nodeWhen(nodes, HOST, 'the marker label on the Node', (n) => labelsOf(n)['my.org/marker'] === 'm');
  const sent = requestsBut(running()) - before;
  const snapshot = running().counter.snapshot().filter((c) => c.verb !== 'watch').map((c) => `${c.verb} ${c.resource} ${c.code}: ${c.count}`);
  assert.is(sent, 1, `one request (the marker's Node patch) across the quiet step and the marker; counts now: ${snapshot.join(', ')}`);
  assert.is(running().counter.count({ verb: 'patch', resource: 'nodes' }) > 0, true);
});

test('LS-4: a prefix that is no label prefix is a Warning event on the Metal3Cluster naming the annotation and the entry; no failed reconcile; fixing it syncs again', async () => {
  const admin = s.admin();
  const m3cs = admin.api(Metal3ClusterResource, ns);
  await m3cs.mergePatch(CLUSTER, { metadata: { annotations: { [LABEL_SYNC_PREFIXES_ANNOTATION]: 'my.org, Bad_Prefix' } } });
  const event = await eventually('the InvalidLabelSyncPrefix event', async () => {
    const events = (await admin.api(EventResource, ns).list()).items;
    return events.find((e) => e.reason === INVALID_PREFIX_REASON && e.involvedObject.kind === 'Metal3Cluster' && e.involvedObject.name === CLUSTER);
  });
  assert.is(event.type, 'Warning');
  assert.match(event.message ?? '', /metal3\.io\/metal3-label-sync-prefixes: invalid prefix \(Bad_Prefix\): a DNS-1123 subdomain must consist of/);
  const reconciles = running().reconciles();
  await patchHostLabels(admin, ns, { 'my.org/while-invalid': 'x' });
  await eventually('the host reconciled with the bad prefix', () => (running().reconciles() > reconciles ? true : undefined));
  assert.is(labelsOf(await nodes.get(HOST))['my.org/while-invalid'], undefined, 'nothing syncs while the prefixes are invalid');
  assert.is(running().errors(), 0, 'a bad prefix never fails a reconcile (no backoff loop)');
  await m3cs.mergePatch(CLUSTER, { metadata: { annotations: { [LABEL_SYNC_PREFIXES_ANNOTATION]: PREFIXES } } });
  await nodeWhen(nodes, HOST, 'the label synced once the annotation is fixed', (n) => labelsOf(n)['my.org/while-invalid'] === 'x');
});

test.run();
