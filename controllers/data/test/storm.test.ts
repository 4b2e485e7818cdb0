// Issue 21 point 4 (reconcile storm) on the real apiserver: N Metal3Data wait for their
// Metal3Machines while the allocation side writes its ledger (the template's status) once per claim,
// as it does for each claim it serves. Those writes must wake nobody: the reconciles counted once
// everything is rendered stay proportional to N, not N². The controllers run as a user bound to
// exactly deploy/rbac.yaml.
import * as assert from 'uvu/assert';
import { MachineResource, newMachine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import {
  type Metal3DataClaim,
  Metal3DataClaimResource,
  Metal3DataResource,
  Metal3DataTemplateResource,
  type Metal3Machine,
  Metal3MachineResource,
  newMetal3DataClaim,
  newMetal3Machine,
} from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { freshNamespace } from '@metal3-ts/test/envtest/suite';
import {
  CLUSTER,
  createCluster,
  createData,
  createHost,
  createTemplate,
  dataSuite,
  eventually,
  HOST,
  type RunningControllers,
  settled,
  startDataControllers,
  TEMPLATE,
} from './support.ts';

const { test, env, admin, track } = dataSuite('Metal3Data reconcile counts (issue 21 point 4)');

let controllers: RunningControllers | undefined;

const N = 30;
const infra = 'infrastructure.cluster.x-k8s.io/v1beta1';
const m3mName = (i: number) => `m3m-${i}`;

async function allData(ns: string, check: (d: { metadata: { finalizers?: string[] }; status?: { ready?: boolean } }) => boolean): Promise<true | undefined> {
  const items = (await admin().api(Metal3DataResource, ns).list()).items;
  return items.length === N && items.every(check) ? true : undefined;
}

test("D-1/DT-1 (changed, issue 21): the template's ledger writes wake no waiting Metal3Data: N waiting, N ledger writes, reconciles ≤ 8 per Metal3Data", async () => {
  const ns = await freshNamespace(env().admin.client, 'm3d-storm');
  controllers = track(await startDataControllers(env(), ns));
  await createCluster(admin(), ns);
  await createTemplate(admin(), ns);
  await createHost(admin(), ns);
  const machine = await admin().api(MachineResource, ns).create(
    newMachine({
      metadata: { name: 'machine' },
      spec: { clusterName: CLUSTER, bootstrap: {}, infrastructureRef: { apiVersion: infra, kind: 'Metal3Machine', name: m3mName(0) } },
    }),
  );
  // The claims of Metal3Machines that do not exist yet, and their Metal3Data: all wait.
  const claims: Metal3DataClaim[] = [];
  for (let i = 0; i < N; i++) {
    const claim = await admin().api(Metal3DataClaimResource, ns).create(
      newMetal3DataClaim({
        metadata: {
          name: m3mName(i),
          labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER },
          ownerReferences: [{ apiVersion: infra, kind: 'Metal3Machine', name: m3mName(i), uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` }],
        },
        spec: { template: { name: TEMPLATE, namespace: ns } },
      }),
    );
    claims.push(claim);
    const future = { metadata: { name: m3mName(i), uid: claim.metadata.ownerReferences![0]!.uid } } as unknown as Metal3Machine;
    await createData(admin(), ns, claim, future, {}, i);
  }
  await eventually('every Metal3Data seen and waiting (finalizer set)', () => allData(ns, (d) => (d.metadata.finalizers?.length ?? 0) > 0), 30_000);

  // The allocation side's bookkeeping: one status write of the template per claim.
  const indexes: Record<string, number> = {};
  for (let i = 0; i < N; i++) {
    indexes[`${TEMPLATE}-${i}`] = i;
    await admin().api(Metal3DataTemplateResource, ns).mergePatchStatus(TEMPLATE, {
      status: { indexes: { ...indexes }, lastUpdated: new Date().toISOString() },
    });
  }

  // The Metal3Machines arrive: every Metal3Data renders.
  for (let i = 0; i < N; i++) {
    await admin().api(Metal3MachineResource, ns).create(
      newMetal3Machine({
        metadata: {
          name: m3mName(i),
          labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER },
          annotations: { 'metal3.io/BareMetalHost': `${ns}/${HOST}` },
          ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'machine', uid: machine.metadata.uid!, controller: true }],
        },
        spec: { image: { url: 'http://x/img', checksum: 'http://x/img.sum' }, dataTemplate: { name: TEMPLATE, namespace: ns } },
      }),
    );
  }
  await eventually('every Metal3Data ready', () => allData(ns, (d) => d.status?.ready === true), 60_000);
  await settled(controllers, 0);
  const reconciles = controllers.reconciles('metal3data');
  console.log(`    ${N} Metal3Data, ${N} ledger writes: ${reconciles} Metal3Data reconciles (${(reconciles / N).toFixed(1)} each)`);
  assert.ok(reconciles <= 8 * N, `reconciles grow with N, not N²: ${reconciles} for ${N}`);
});

test.run();
