// Whole-cluster lifecycles with the controllers as processes from their bundles, on one lab:
// 1 bring-up of the seed 003 cluster, 2 an upgrade with node reuse (seed 001), 3 scaling (unhealthy
// hosts, a selector nothing matches), 4 Nodes that already carry a provider ID (seed 000), 4b host
// labels synced onto a Node (label sync), 5 pause,
// 6 tear-down. The scenarios run in order, each from where the last left the cluster; each prints its
// wall time. Real Cluster API (CAPI_VERSION, default the newest release), Metal3 objects at METAL3_VERSION,
// KCP with 3 replicas and real etcd members on the simulated workload cluster. The lab has 3 control-plane and 3 worker hosts;
// the upgrade adds a spare control-plane host, so a control-plane Machine that comes back on its
// predecessor's host got there by node reuse, not for want of another host.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KubeadmConfigTemplateResource } from '@metal3-ts/generated/bootstrap.cluster.x-k8s.io/v1beta1';
import { KubeadmControlPlaneResource } from '@metal3-ts/generated/controlplane.cluster.x-k8s.io/v1beta1';
import { ClusterResource, MachineDeploymentResource, newMachineDeployment } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { IPClaimResource } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { PROVIDER_ID_MODE_ANNOTATION } from '@metal3-ts/test/sim/workload/names';
import { type Lab, startLab } from '../lab/lab.ts';
import { isClusterRunning } from '../lab/progress.ts';
import { KCP, kcpReader } from './kcp.ts';
import {
  CAPI,
  CLUSTER,
  CONTROL_PLANE_REPLICAS,
  eventually,
  hosts,
  hostsByMachine,
  hostsOf,
  labUntil,
  METAL3,
  metal3Machines,
  nodes,
  RUN,
  running,
  seconds,
  secretKeys,
} from './support.ts';

const test = suite(`end to end: whole-cluster lifecycles (${RUN})`);
const CP = CONTROL_PLANE_REPLICAS;
/**
 * The version both pools move to: the next minor. Real Cluster API's MachineSet preflight checks hold
 * the workers' new Machines until the control plane runs it and is stable.
 */
const NEXT_VERSION = 'v1.29.0';
let lab: Lab;
const timings: string[] = [];

test.before(async () => {
  lab = await startLab({ hosts: CP + 3, controlPlaneHosts: CP, capi: CAPI, metal3Version: METAL3 }).catch((error: Error) => {
    // uvu drops an error thrown by a before hook without a word: say it.
    console.error(`    lab did not start: ${error.stack ?? error.message}`);
    throw error;
  });
});

test.after(async () => {
  console.log(`e2e wall times (Cluster API ${CAPI}, ${CP} control-plane replicas): ${timings.join(', ')}`);
  await lab?.stop();
});

test('1 bring-up (seed 003): the cluster reaches Running; every Machine has a new-format provider ID equal to its Node’s; every host carries the rendered Secrets', async () => {
  const t0 = performance.now();
  const s = await running(lab, 300_000);
  await kcpReader(lab).settle(CP);
  timings.push(`bring-up ${seconds(t0)} s`);
  const { client, namespace } = lab;
  assert.is(s.machines.length, CP + 3);
  const workloadNodes = await nodes(client, namespace);
  const byMachine = hostsByMachine(s);
  for (const m of s.machines) {
    const name = m.spec?.infrastructureRef.name ?? '';
    const host = byMachine.get(name);
    assert.ok(host, `${name} has a host`);
    assert.is(m.spec?.providerID, `metal3://${namespace}/${host}/${name}`, 'P-1 new format');
    const node = workloadNodes.find((n) => n.metadata.name === m.status?.nodeRef?.name);
    assert.is(node?.spec?.providerID, m.spec?.providerID, `${name}: the Node carries the same provider ID`);
  }
  for (const h of s.hosts.filter((x) => x.spec?.consumerRef)) {
    const m3m = h.spec?.consumerRef?.name ?? '';
    assert.equal(h.spec?.metaData, { name: `${m3m}-metadata`, namespace }, `${h.metadata.name}: metaData`);
    assert.equal(h.spec?.networkData, { name: `${m3m}-networkdata`, namespace }, `${h.metadata.name}: networkData`);
    assert.equal(await secretKeys(client, namespace, `${m3m}-metadata`), ['metaData']);
    assert.equal(await secretKeys(client, namespace, `${m3m}-networkdata`), ['networkData']);
  }
});

test('2 upgrade with node reuse (seed 001, N-6/H-10): nodeReuse and cleaning disabled, KCP (3 replicas, maxSurge 0) and md-0 to the next minor with a new worker template: each replaced Machine’s host is taken by its replacement although a spare control-plane host is free, no host is cleaned, the etcd members follow the control-plane Nodes', async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const kcp = kcpReader(lab);
  const before = await running(lab);
  const cpHosts = hostsOf(before, KCP);
  const mdHosts = hostsOf(before, 'md-0');
  const oldMachines = new Set(before.machines.map((m) => m.metadata.name ?? ''));
  await kcp.members(CP);
  const oldMembers = await kcp.memberList();
  const oldProcesses = kcp.processes();
  const [spare] = await lab.addHosts(1, 'control-plane');
  const templates = client.api(Metal3MachineTemplateResource, namespace);
  for (const name of [KCP, 'md-0']) {
    await templates.mergePatch(name, { spec: { nodeReuse: true, template: { spec: { automatedCleaningMode: 'disabled' } } } });
  }
  // N-2: the template controller brings the mode to the Metal3Machines, the machine controller to the hosts.
  await eventually(
    'cleaning disabled on every used host',
    async () => ((await hosts(lab)).filter((h) => h.spec?.consumerRef).every((h) => h.spec?.automatedCleaningMode === 'disabled') ? true : undefined),
  );

  // Watch every host that starts deprovisioning: cleaning must be off at that moment.
  const cleaned = new Set<string>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      for (const h of await hosts(lab)) {
        if (h.status?.provisioning?.state === 'deprovisioning' && h.spec?.automatedCleaningMode !== 'disabled') cleaned.add(h.metadata.name ?? '');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  const md0 = await templates.get('md-0');
  await templates.create(newMetal3MachineTemplate({ metadata: { name: 'md-0-v2' }, spec: structuredClone(md0.spec) }));
  // maxSurge 0: KCP removes a Machine (and its etcd member) before creating its replacement, which
  // real KCP allows from 3 replicas on; the freed host carries the node-reuse label for it.
  await client.api(KubeadmControlPlaneResource, namespace).mergePatch(KCP, {
    spec: { version: NEXT_VERSION, rolloutStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } } },
  });
  await client.api(MachineDeploymentResource, namespace).mergePatch('md-0', {
    spec: {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      template: {
        spec: {
          version: NEXT_VERSION,
          infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'md-0-v2' },
        },
      },
    },
  });
  const rolled = await labUntil(
    lab,
    'the control plane rolled out',
    (s) => {
      const cp = s.machines.filter((m) => (m.metadata.name ?? '').startsWith(KCP) && !m.metadata.deletionTimestamp);
      return cp.length === CP && cp.every((m) => m.spec?.version === NEXT_VERSION && m.status?.phase === 'Running');
    },
    420_000,
  );
  timings.push(`control-plane rollout ${seconds(t0)} s`);
  const after = await labUntil(
    lab,
    'all Machines upgraded and Running',
    (s) => isClusterRunning(s, CLUSTER) && s.machines.length === CP + 3 && s.machines.every((m) => m.spec?.version === NEXT_VERSION),
    420_000,
  );
  watching = false;
  await watcher;
  timings.push(`upgrade ${seconds(t0)} s`);
  const reused = (prefix: string, hostList: string[]) => {
    const byMachine = hostsByMachine(after);
    for (const m of after.machines.filter((x) => (x.metadata.name ?? '').startsWith(prefix))) {
      assert.not.ok(oldMachines.has(m.metadata.name ?? ''), `${m.metadata.name} replaced`);
      assert.ok(
        hostList.includes(byMachine.get(m.spec?.infrastructureRef.name ?? '') ?? '?'),
        `N-6/H-10: ${m.metadata.name} on a host of a Machine it replaced`,
      );
    }
  };
  reused(KCP, cpHosts);
  assert.equal(hostsOf(rolled, KCP), cpHosts, 'N-6/H-10: control-plane Machines on their predecessors’ hosts (right after the rollout)');
  assert.equal(hostsOf(after, KCP), cpHosts, 'N-6/H-10: control-plane Machines on the same hosts');
  assert.not.ok(after.hosts.find((h) => h.metadata.name === spare)?.spec?.consumerRef, 'the spare control-plane host stays free');
  reused('md-0', mdHosts);
  assert.equal(hostsOf(after, 'md-0'), mdHosts, 'N-6/H-10: worker Machines on the same hosts');
  assert.equal([...cleaned], [], 'no host deprovisioned with cleaning');
  const m3ms = await metal3Machines(lab);
  assert.ok(
    m3ms.filter((m) => m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'] === 'md-0-v2').length === 3,
    'the workers were cloned from the new template',
  );
  // Real etcd membership followed. The Nodes keep their names (named after their hosts, which were
  // reused), so the members are told apart by etcd's IDs: each old member left the cluster and the new
  // Node joined as a new member.
  await kcp.settle(CP);
  const { nodes } = await kcp.members(CP);
  const newMembers = await eventually('etcd lists one member per control-plane Node', async () => {
    const list = await kcp.memberList();
    return list.map((m) => m.name).join() === nodes.join() ? list : undefined;
  });
  const oldIds = new Set(oldMembers.map((m) => m.ID));
  assert.equal(newMembers.filter((m) => oldIds.has(m.ID)).map((m) => m.name), [], 'every member joined anew');
  // KCP removes a Machine's member before deleting the Machine, and a removed member exits by itself
  // (code 0); one still a member when its host is deprovisioned is stopped by the simulator (SIGTERM).
  const exits = await Promise.all(oldProcesses.map(async (p) => ({ name: p.name, ...(await p.process.exited) })));
  assert.equal(exits.filter((e) => e.code !== 0 || e.signal !== null), [], 'each old member was removed from the cluster by KCP and exited by itself');
  console.log(`    etcd members ${oldMembers.map((m) => `${m.name}=${m.ID}`).join()} -> ${newMembers.map((m) => `${m.name}=${m.ID}`).join()}`);
});

test('3 scale: down and up; an unhealthy host is never chosen; a selector nothing matches waits with a clear condition until a matching host is added', async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const [healthy, unhealthy] = await lab.addHosts(2, 'worker');
  await client.api(BareMetalHostResource, namespace).mergePatch(unhealthy ?? '', {
    metadata: { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } },
  });
  const mds = client.api(MachineDeploymentResource, namespace);
  await mds.mergePatch('md-0', { spec: { replicas: 2 } });
  await labUntil(lab, 'md-0 scaled down to 2', (s) => isClusterRunning(s, CLUSTER) && hostsOf(s, 'md-0').length === 2);
  await mds.mergePatch('md-0', { spec: { replicas: 4 } });
  const up = await labUntil(lab, 'md-0 scaled up to 4', (s) => isClusterRunning(s, CLUSTER) && hostsOf(s, 'md-0').length === 4);
  assert.ok(hostsOf(up, 'md-0').includes(healthy ?? ''), 'the new healthy host is used');
  assert.not.ok(hostsOf(up, 'md-0').includes(unhealthy ?? ''), 'H-6: the unhealthy host is never chosen');
  assert.not.ok((await client.api(BareMetalHostResource, namespace).get(unhealthy ?? '')).spec?.consumerRef);

  // A MachineDeployment whose template selects `pool: gpu`: no such host yet.
  const md0Template = await client.api(Metal3MachineTemplateResource, namespace).get('md-0-v2');
  await client.api(Metal3MachineTemplateResource, namespace).create(
    newMetal3MachineTemplate({
      metadata: { name: 'md-gpu' },
      spec: {
        nodeReuse: false,
        template: { spec: { ...structuredClone(md0Template.spec?.template.spec ?? {}), hostSelector: { matchLabels: { pool: 'gpu' } } } },
      },
    }),
  );
  const md0 = await mds.get('md-0');
  await mds.create(
    newMachineDeployment({
      metadata: { name: 'md-gpu', labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      spec: {
        clusterName: CLUSTER,
        replicas: 1,
        selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': CLUSTER, nodepool: 'gpu' } },
        template: {
          metadata: { labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER, nodepool: 'gpu' } },
          spec: {
            ...structuredClone(md0.spec?.template.spec ?? { clusterName: CLUSTER, bootstrap: {}, infrastructureRef: {} }),
            bootstrap: md0.spec?.template.spec?.bootstrap ?? {},
            infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'md-gpu' },
          },
        },
      },
    }),
  );
  const waiting = await eventually(
    'the gpu Metal3Machine waiting for a host',
    async () =>
      (await metal3Machines(lab)).find((m) =>
        m.metadata.annotations?.['cluster.x-k8s.io/cloned-from-name'] === 'md-gpu' &&
        m.status?.conditions?.some((c) =>
          c.type === 'AssociateBMH' && c.status === 'False' && c.reason === 'AssociateBMHFailed' && (c.message ?? '').includes('No available host found')
        )
      ),
  );
  assert.ok(waiting.status?.conditions?.find((c) => c.type === 'AssociateBMH')?.message?.includes('pool=gpu'), 'the message names the selector');
  const [gpu] = await lab.addHosts(1, 'gpu');
  const done = await labUntil(lab, 'the gpu Machine Running', (s) => isClusterRunning(s, CLUSTER) && hostsOf(s, 'md-gpu').length === 1);
  assert.equal(hostsOf(done, 'md-gpu'), [gpu]);
  timings.push(`scale ${seconds(t0)} s`);
});

test('4 pivot and legacy IDs (seed 000): Nodes that already carry metal3://<uid> or the new format are adopted without a patch', async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const mds = client.api(MachineDeploymentResource, namespace);
  for (const [mode, replicas] of [['legacy', 2], ['cloud-provider', 3]] as const) {
    await client.api(ClusterResource, namespace).mergePatch(CLUSTER, { metadata: { annotations: { [PROVIDER_ID_MODE_ANNOTATION]: mode } } });
    const [host] = await lab.addHosts(1, 'gpu');
    await mds.mergePatch('md-gpu', { spec: { replicas } });
    const s = await labUntil(lab, `md-gpu at ${replicas} (${mode} Nodes)`, (x) => isClusterRunning(x, CLUSTER) && hostsOf(x, 'md-gpu').includes(host ?? ''));
    const m3m = [...hostsByMachine(s)].find(([, h]) => h === host)?.[0] ?? '';
    const machine = s.machines.find((m) => m.spec?.infrastructureRef.name === m3m);
    const bmh = s.hosts.find((h) => h.metadata.name === host);
    const expected = mode === 'legacy' ? `metal3://${bmh?.metadata.uid ?? ''}` : `metal3://${namespace}/${host}/${m3m}`;
    assert.is(machine?.spec?.providerID, expected, `${mode}: the Node's own provider ID is adopted`);
    const node = (await nodes(client, namespace)).find((n) => n.metadata.name === machine?.status?.nodeRef?.name);
    assert.is(node?.spec?.providerID, expected);
    const writers = (node?.metadata.managedFields ?? []).filter((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('f:providerID'));
    assert.is(writers.length, 1, `${mode}: only the kubelet wrote the provider ID (no patch): ${JSON.stringify(writers.map((w) => [w.manager, w.operation]))}`);
  }
  await client.api(ClusterResource, namespace).mergePatch(CLUSTER, { metadata: { annotations: { [PROVIDER_ID_MODE_ANNOTATION]: 'default' } } });
  timings.push(`pivot ${seconds(t0)} s`);
});

test("4b label sync (LS-1…LS-6): with the Metal3Cluster's prefix annotation, a host label under the prefix reaches its Node and leaves it when removed; other labels stay", async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const s = await running(lab);
  const machine = s.machines.find((m) => m.status?.nodeRef?.name);
  const m3mName = machine?.spec?.infrastructureRef.name ?? '';
  const host = hostsByMachine(s).get(m3mName) ?? '';
  const nodeName = machine?.status?.nodeRef?.name ?? '';
  assert.ok(host && nodeName, 'a Machine with a Node on a host');
  const m3c = (await client.api(ClusterResource, namespace).get(CLUSTER)).spec?.infrastructureRef?.name ?? '';
  const m3cs = client.api(Metal3ClusterResource, namespace);
  const hostApi = client.api(BareMetalHostResource, namespace);
  await m3cs.mergePatch(m3c, { metadata: { annotations: { 'metal3.io/metal3-label-sync-prefixes': 'lab.metal3-ts.dev' } } });
  await hostApi.mergePatch(host, { metadata: { labels: { 'lab.metal3-ts.dev/rack': 'r12', 'lab-unsynced': 'x' } } });
  const nodeLabels = async () => (await nodes(client, namespace)).find((n) => n.metadata.name === nodeName)?.metadata.labels ?? {};
  const synced = await eventually(`lab.metal3-ts.dev/rack on Node ${nodeName}`, async () => {
    const labels = await nodeLabels();
    return labels['lab.metal3-ts.dev/rack'] === 'r12' ? labels : undefined;
  }, 30_000);
  assert.is(synced['lab-unsynced'], undefined, 'a label outside the prefixes stays on the host');
  assert.ok(synced['kubernetes.io/hostname'], "the kubelet's labels stay");
  await hostApi.mergePatch(host, { metadata: { labels: { 'lab.metal3-ts.dev/rack': null, 'lab-unsynced': null } } });
  await eventually('the label gone from the Node', async () => ((await nodeLabels())['lab.metal3-ts.dev/rack'] === undefined ? true : undefined), 30_000);
  await m3cs.mergePatch(m3c, { metadata: { annotations: { 'metal3.io/metal3-label-sync-prefixes': null } } });
  timings.push(`label sync ${seconds(t0)} s`);
});

test('5 pause: pausing the Cluster pauses its hosts; unpausing resumes', async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const clusters = client.api(ClusterResource, namespace);
  await clusters.mergePatch(CLUSTER, { spec: { paused: true } });
  const paused = await eventually('every claimed host paused by us', async () => {
    const claimed = (await hosts(lab)).filter((h) => h.spec?.consumerRef);
    return claimed.length > 0 &&
        claimed.every((h) =>
          h.metadata.annotations?.['baremetalhost.metal3.io/paused'] === 'metal3.io/capm3' && !!h.metadata.annotations['baremetalhost.metal3.io/status']
        )
      ? claimed
      : undefined;
  }, 30_000);
  assert.ok(paused.length >= CP + 6, `${paused.length} hosts paused`);
  await clusters.mergePatch(CLUSTER, { spec: { paused: false } });
  await eventually(
    'no host paused any more',
    async () => ((await hosts(lab)).every((h) => !h.metadata.annotations?.['baremetalhost.metal3.io/paused']) ? true : undefined),
    30_000,
  );
  await running(lab);
  timings.push(`pause ${seconds(t0)} s`);
});

test('6 tear-down: deleting the Cluster returns every host to available and leaves no Metal3 object, rendered Secret, IP claim or finalizer behind', async () => {
  const t0 = performance.now();
  const { client, namespace } = lab;
  const m3ms = (await metal3Machines(lab)).map((m) => m.metadata.name ?? '');
  await client.api(ClusterResource, namespace).delete(CLUSTER);
  await eventually('the Cluster gone', async () => ((await client.api(ClusterResource, namespace).list()).items.length === 0 ? true : undefined), 180_000);
  await eventually(
    'every host available and unclaimed',
    async () => ((await hosts(lab)).every((h) => !h.spec?.consumerRef && h.status?.provisioning?.state === 'available') ? true : undefined),
    120_000,
  );
  const left = async () => ({
    metal3Clusters: (await client.api(Metal3ClusterResource, namespace).list()).items.length,
    metal3Machines: (await client.api(Metal3MachineResource, namespace).list()).items.length,
    claims: (await client.api(Metal3DataClaimResource, namespace).list()).items.length,
    datas: (await client.api(Metal3DataResource, namespace).list()).items.length,
    dataTemplates: (await client.api(Metal3DataTemplateResource, namespace).list()).items.length,
    ipClaims: (await client.api(IPClaimResource, namespace).list()).items.length,
    secrets:
      (await client.api(SecretResource, namespace).list()).items.filter((x) =>
        m3ms.some((m) => x.metadata.name === `${m}-metadata` || x.metadata.name === `${m}-networkdata`)
      ).length,
  });
  const none = { metal3Clusters: 0, metal3Machines: 0, claims: 0, datas: 0, dataTemplates: 0, ipClaims: 0, secrets: 0 };
  await eventually('nothing left', async () => (JSON.stringify(await left()) === JSON.stringify(none) ? true : undefined), 60_000).catch(
    async (error: unknown) => {
      throw new Error(`${String(error)}; left: ${JSON.stringify(await left())}`);
    },
  );
  for (const h of await hosts(lab)) {
    assert.not.ok(h.metadata.labels?.['infrastructure.cluster.x-k8s.io/node-reuse'], `N-6: no reuse label while the Cluster is deleted (${h.metadata.name})`);
    assert.not.ok(h.metadata.ownerReferences?.length, `${h.metadata.name}: no owner left`);
    assert.not.ok(h.metadata.labels?.['cluster.x-k8s.io/cluster-name'], `${h.metadata.name}: no cluster label left`);
  }
  // What the user created beside the Cluster is theirs to delete, and nothing of ours blocks it.
  for (const t of (await client.api(Metal3MachineTemplateResource, namespace).list()).items) {
    assert.equal(t.metadata.finalizers ?? [], [], `${t.metadata.name}: no finalizer`);
  }
  for (const t of (await client.api(KubeadmConfigTemplateResource, namespace).list()).items) assert.equal(t.metadata.finalizers ?? [], []);
  timings.push(`tear-down ${seconds(t0)} s`);
});

test.run();
