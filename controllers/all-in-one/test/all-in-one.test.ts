// The all-in-one bundle (src/main.ts through scripts/bundle.ts, minified, as shipped) against the real
// apiserver under exactly config/all-in-one/rbac.yaml (the generated union of the six controllers'
// rules) with leader election on: one LIST per kind however many of its controllers read the kind (one
// informer per kind, counted by the apiserver's own apiserver_request_total, not by timing), then a
// small cluster end to end with every controller's part: the Metal3Cluster made ready (cluster), a
// Metal3Machine with a data template claimed (machine), its claim given a Metal3Data (dataclaim), the
// Metal3Data rendered (data), the template's finalizer (data template), the machine ready with its
// provider ID on a host (simulated BMO, Cluster API and workload cluster), a clone propagated from its
// Metal3MachineTemplate (template); one Lease; exit 0 on SIGTERM.
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseResource } from '@metal3-ts/generated/coordination.k8s.io/v1';
import { ClusterResource, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  Metal3ClusterResource,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  Metal3MachineResource,
  Metal3MachineTemplateResource,
  newMetal3Cluster,
  newMetal3DataTemplate,
  newMetal3Machine,
  newMetal3MachineTemplate,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { newSecret, SecretResource } from '@metal3-ts/generated/core/v1';
import { userBoundTo } from '@metal3-ts/test/envtest/rbac';
import { ControllerProcess, httpGet } from '@metal3-ts/test/harness/controller-process';
import { eventually } from '@metal3-ts/test/testing/eventually';
import { objectWhen } from '@metal3-ts/test/testing/objects';
import { CLONED_FROM_GROUPKIND_ANNOTATION, CLONED_FROM_NAME_ANNOTATION, METAL3_MACHINE_TEMPLATE_GROUPKIND } from '@metal3-ts/controller-template/names';
import { bundle } from '../../../scripts/bundle.ts';
import { BOOTSTRAP_SECRET, CLUSTER, createMachine, IMAGE, JOIN_CLOUD_CONFIG, machineTestScene } from '../../machine/test/support.ts';
import { listsOf, reconcilesOf } from './counts.ts';

const RBAC = fileURLToPath(new URL('../../../config/all-in-one/rbac.yaml', import.meta.url));
const LEASE = 'controller-leader-election-capm3';
const TIMEOUT_MS = 45_000;

const test = suite('all-in-one bundle: six controllers in one process');
let dir = '';
let bundlePath = '';
let kubeconfig = '';
const scene = machineTestScene(test, {
  prefix: 'all-in-one',
  hosts: ['host-0'],
  cluster: false,
  controller: false,
  async setup(s) {
    dir = mkdtempSync(join(tmpdir(), 'all-in-one-'));
    bundlePath = join(dir, 'controller-all-in-one.mjs');
    await bundle(fileURLToPath(new URL('../src/main.ts', import.meta.url)), bundlePath, { minify: true });
    kubeconfig = (await userBoundTo(s.env, `all-in-one-${s.ns}`, RBAC, s.ns)).kubeconfigPath;
  },
  teardown() {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return Promise.resolve();
  },
});

/** Kinds more than one of the six controllers reads, and who reads them. */
const SHARED_KINDS: Readonly<Record<string, string>> = {
  metal3machines: 'cluster, template, machine, data, labelsync, remediation',
  machines: 'cluster, machine, data, labelsync, remediation',
  clusters: 'cluster, machine, data, dataclaim, labelsync',
  metal3datas: 'machine, data, dataclaim',
  metal3dataclaims: 'machine, data, dataclaim',
  metal3datatemplates: 'data, dataclaim',
};

test('shared informers, a small cluster end to end, one Lease (M-1, C-1, DT-1, D-1, T-1)', async () => {
  const { client: admin, ns } = scene;
  const apiserverMetrics = () => scene.env.admin.client.get<string>('/metrics', { raw: true });
  const before = listsOf(await apiserverMetrics(), Object.keys(SHARED_KINDS));
  // deno-fmt-ignore
  const p = new ControllerProcess('node', bundlePath, [
    '--kubeconfig', kubeconfig, '--namespace', ns,
    '--leader-elect', '--leader-elect-namespace', ns,
    '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '127.0.0.1:0',
    '--metal3machine-concurrency', '2', '--metal3datatemplate-concurrency', '2',
  ]);
  try {
    const probes = await p.address('readyz');
    await eventually('/readyz 200', async () => ((await httpGet(probes, '/readyz')).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      explain: () => [p.tail()],
    });
    // Ready means every informer has listed; each kind was listed once in this namespace.
    const after = listsOf(await apiserverMetrics(), Object.keys(SHARED_KINDS));
    for (const [kind, readers] of Object.entries(SHARED_KINDS)) {
      assert.is((after.get(kind) ?? 0) - (before.get(kind) ?? 0), 1, `${kind} (read by ${readers}) listed once`);
    }

    // The cluster: our cluster controller makes the Metal3Cluster ready.
    await admin.api(SecretResource, ns).create(newSecret({
      metadata: { name: BOOTSTRAP_SECRET, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: JOIN_CLOUD_CONFIG, format: 'cloud-config' },
    }));
    const cluster = await admin.api(ClusterResource, ns).create(newCluster({
      metadata: { name: CLUSTER },
      spec: { infrastructureRef: { apiVersion: Metal3ClusterResource.apiVersion, kind: 'Metal3Cluster', name: CLUSTER } },
    }));
    const owner = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: CLUSTER, uid: cluster.metadata.uid!, controller: true };
    await admin.api(Metal3ClusterResource, ns).create(newMetal3Cluster({
      metadata: { name: CLUSTER, ownerReferences: [owner], labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, noCloudProvider: true },
    }));
    await objectWhen(admin, Metal3ClusterResource, ns, CLUSTER, 'Metal3Cluster ready', (m) => m.status?.ready === true, TIMEOUT_MS);

    // A machine with a data template: claim, Metal3Data rendered, host provisioned, provider ID.
    await admin.api(Metal3DataTemplateResource, ns).create(newMetal3DataTemplate({ metadata: { name: 'tmpl' }, spec: { clusterName: CLUSTER } }));
    await createMachine(admin, ns, 'm-0', { spec: { image: IMAGE, dataTemplate: { name: 'tmpl' } } });
    const m3m = await objectWhen(
      admin,
      Metal3MachineResource,
      ns,
      'm-0',
      'm-0 ready with a provider ID',
      (m) => m.status?.ready === true && !!m.spec?.providerID,
      TIMEOUT_MS,
    );
    assert.is(m3m.spec?.providerID, `metal3://${ns}/host-0/m-0`);
    const claim = await objectWhen(admin, Metal3DataClaimResource, ns, 'm-0', 'the claim rendered', (c) => !!c.status?.renderedData?.name, TIMEOUT_MS);
    const data = await objectWhen(
      admin,
      Metal3DataResource,
      ns,
      claim.status!.renderedData!.name!,
      'the Metal3Data ready',
      (d) => d.status?.ready === true,
      TIMEOUT_MS,
    );
    assert.ok(data.metadata.name);
    const tmpl = await admin.api(Metal3DataTemplateResource, ns).get('tmpl');
    assert.ok(tmpl.metadata.finalizers?.length, 'the data template has its finalizer');

    // The template controller: a clone takes its template's cleaning mode.
    await admin.api(Metal3MachineTemplateResource, ns).create(
      newMetal3MachineTemplate({ metadata: { name: 'mt' }, spec: { template: { spec: { image: IMAGE, automatedCleaningMode: 'disabled' } } } }),
    );
    const cloned = { [CLONED_FROM_NAME_ANNOTATION]: 'mt', [CLONED_FROM_GROUPKIND_ANNOTATION]: METAL3_MACHINE_TEMPLATE_GROUPKIND };
    await admin.api(Metal3MachineResource, ns).create(
      newMetal3Machine({ metadata: { name: 'clone', annotations: cloned }, spec: { image: IMAGE, automatedCleaningMode: 'metadata' } }),
    );
    await objectWhen(admin, Metal3MachineResource, ns, 'clone', 'the clone took the mode', (m) => m.spec?.automatedCleaningMode === 'disabled', TIMEOUT_MS);

    const reconciles = reconcilesOf((await httpGet(await p.address('metrics'), '/metrics')).body);
    for (const c of ['metal3cluster', 'metal3machine', 'metal3machinetemplate', 'metal3data', 'metal3datatemplate', 'metal3dataclaim', 'metal3labelsync']) {
      assert.ok((reconciles.get(c) ?? 0) > 0, `${c} reconciled in the one process (${JSON.stringify([...reconciles])})`);
    }
    const leases = (await admin.api(LeaseResource, ns).list()).items;
    assert.equal(leases.map((l) => l.metadata.name), [LEASE], 'one Lease for the process');
    assert.ok(leases[0]?.spec?.holderIdentity);
  } finally {
    p.kill('SIGTERM');
  }
  const exit = await p.exited;
  assert.is(exit.code, 0, `exit code (log tail:\n${p.tail()})`);
  assert.not.ok(p.lines.some((l) => l.level === 'error'), `no error logged (log tail:\n${p.tail()})`);
});

test.run();
