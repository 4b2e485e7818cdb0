// The seed 003 cluster from the manifests of the generation the rest of the run does not write
// (support.ts METAL3): with METAL3_VERSION=v1beta1 the hand-written manifests/v1beta2/cluster.yaml
// (the Metal3 objects at infrastructure.cluster.x-k8s.io/v1beta2), with v1beta2 seed 003's own
// manifests/cluster.yaml unchanged. So each Cluster API pass of CI brings the seed up from both
// (issue 18). Our CRDs store v1beta2; the cluster comes up the same either way, and Cluster API
// reports every Machine Available from our objects (v1.13.5: Machine v1beta2 conditions; v1.10.10:
// the same conditions under status.v1beta2). Our objects read the same at both versions: the
// Metal3Cluster's cloudProviderEnabled false is v1beta1's noCloudProvider true, and every
// Metal3Machine is provisioned (v1beta2 status.initialization) with the provider ID of its Machine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import type { KubeObject } from '@metal3-ts/generated';
import { EXAMPLE_MANIFESTS, type Lab, startLab } from '../lab/lab.ts';
import { CAPI, CLUSTER, CONTROL_PLANE_REPLICAS, eventually, METAL3, running, seconds } from './support.ts';

/** The generation this scenario writes: the one the rest of the run does not. */
const WRITTEN = METAL3 === 'v1beta1' ? 'v1beta2' : 'v1beta1';
const test = suite(`end to end: the seed cluster from ${WRITTEN} manifests (Cluster API ${CAPI})`);
const CP = CONTROL_PLANE_REPLICAS;
const INFRA = 'infrastructure.cluster.x-k8s.io';
let lab: Lab;

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
}
// Read loosely: the point is what each API version shows, whichever the generated types know.
// deno-lint-ignore no-explicit-any
type Loose = KubeObject & Record<string, any>;

test.before(async () => {
  lab = await startLab({
    hosts: CP + 3,
    controlPlaneHosts: CP,
    capi: CAPI,
    manifests: WRITTEN === 'v1beta2' ? join(EXAMPLE_MANIFESTS, 'v1beta2') : EXAMPLE_MANIFESTS,
  }).catch((error: Error) => {
    // uvu drops an error thrown by a before hook without a word: say it.
    console.error(`    lab did not start: ${error.stack ?? error.message}`);
    throw error;
  });
});

test.after(async () => {
  await lab?.stop();
});

const list = async (group: string, version: string, plural: string): Promise<Loose[]> =>
  (await lab.env.admin.client.get<{ items: Loose[] }>(`/apis/${group}/${version}/namespaces/${lab.namespace}/${plural}`)).items;

/** Cluster API's own v1beta2 conditions of a Machine, wherever its release serves them. */
async function machineConditions(): Promise<Map<string, readonly Condition[]>> {
  const v1beta2 = CAPI !== 'v1.10.10';
  const machines = await list('cluster.x-k8s.io', v1beta2 ? 'v1beta2' : 'v1beta1', 'machines');
  return new Map(machines.map((m) => [m.metadata!.name!, (v1beta2 ? m['status']?.conditions : m['status']?.v1beta2?.conditions) ?? []]));
}

test(`CV-1, seed 003 at ${WRITTEN}: the cluster reaches Running; Cluster API reports every Machine Available; our objects read the same at v1beta1 and v1beta2`, async () => {
  const t0 = performance.now();
  const s = await running(lab, 300_000);
  assert.is(s.machines.length, CP + 3);
  console.log(`    Running after ${seconds(t0)} s`);

  let last = '';
  await eventually('every Machine Available (Cluster API v1beta2 condition)', async () => {
    const conditions = await machineConditions();
    const notYet = [...conditions].filter(([, cs]) => !cs.some((c) => c.type === 'Available' && c.status === 'True'));
    last = notYet.map(([name, cs]) => `${name}: ${cs.map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`).join(' ')}`).join('; ');
    return conditions.size === CP + 3 && notYet.length === 0 ? true : undefined;
  }, { timeoutMs: 180_000, explain: () => [`not Available: ${last}`] });
  console.log(`    every Machine Available after ${seconds(t0)} s`);

  const [hub] = await list(INFRA, 'v1beta2', 'metal3clusters');
  const [spoke] = await list(INFRA, 'v1beta1', 'metal3clusters');
  assert.is(hub?.metadata?.name, `m3${CLUSTER}`);
  assert.equal([hub?.['spec'].cloudProviderEnabled, spoke?.['spec'].noCloudProvider], [false, true], 'CV-5: the same intent at both versions');
  assert.equal([hub?.['status']?.initialization?.provisioned, spoke?.['status']?.ready], [true, true], 'CV-3: provisioned is ready');

  const machines = new Map((await list('cluster.x-k8s.io', 'v1beta1', 'machines')).map((m) => [m['spec'].infrastructureRef.name, m]));
  const metal3Machines = await list(INFRA, 'v1beta2', 'metal3machines');
  assert.is(metal3Machines.length, CP + 3);
  for (const m of metal3Machines) {
    const name = m.metadata!.name!;
    assert.ok(m['status']?.initialization?.provisioned, `${name}: v1beta2 status.initialization.provisioned`);
    assert.ok(m['spec'].providerID, `${name}: provider ID`);
    assert.is(machines.get(name)?.['spec'].providerID, m['spec'].providerID, `${name}: the Machine's provider ID is ours`);
    assert.ok(m['spec'].image.diskFormat, `${name}: v1beta2 image.diskFormat`);
  }
  const templates = await list(INFRA, 'v1beta1', 'metal3machinetemplates');
  assert.ok(templates.every((t) => t['spec'].template.spec.image.format === 'raw'), 'v1beta1 image.format, as written at v1beta2 diskFormat');
});

test.run();
