// A Metal3Machine from creation to Node and back, with the simulated BMO and workload cluster and the
// real Cluster API: association (M-18…M-27, H-13), provisioning (M-25, M-30, M-31), the provider ID
// on the node-label path (P-8, P-11) and the Cluster API contract (seed 002), then deletion
// (X-1…X-16). One workload apiserver for the file; the tests run in order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { BareMetalHostResource } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { BMC_SECRET_LABELLED_ANNOTATION } from '../src/names.ts';
import {
  BOOTSTRAP_SECRET,
  CLUSTER,
  createMachine,
  eventsFor,
  gone,
  hostWhen,
  IMAGE,
  machineTestScene,
  machineWithNode,
  metal3MachineWhen,
  settled,
  v1,
  v2,
  workloadNodes,
} from './support.ts';

const test = suite('Metal3Machine lifecycle with the real Cluster API');
const scene = machineTestScene(test, { prefix: 'machine-lifecycle', hosts: ['host-0'] });

test('M-18…M-27, H-13, M-25, M-31, P-8, P-11: a Metal3Machine gets a host, the host is provisioned, the Node gets the new-format provider ID', async () => {
  await createMachine(scene.client, scene.ns, 'm-0', { spec: { image: IMAGE, automatedCleaningMode: 'metadata' } });
  const m3m = await metal3MachineWhen(scene.client, scene.ns, 'm-0', 'm-0 ready', (m) => m.status?.ready === true && !!m.spec?.providerID, 30_000);

  // M-18, M-41, M-23
  assert.ok(m3m.metadata.finalizers?.includes('metal3machine.infrastructure.cluster.x-k8s.io'));
  assert.is(m3m.metadata.annotations?.['metal3.io/BareMetalHost'], `${scene.ns}/host-0`);
  assert.equal(m3m.status?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });

  // H-13: the host as CAPM3 leaves it
  const host = await scene.client.api(BareMetalHostResource, scene.ns).get('host-0');
  assert.equal(host.spec?.consumerRef, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', namespace: scene.ns });
  assert.equal(
    host.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
    [['Metal3Machine', 'm-0', m3m.metadata.uid, true]],
  );
  assert.is(host.metadata.labels?.['cluster.x-k8s.io/cluster-name'], CLUSTER);
  assert.equal(host.spec?.image, IMAGE);
  assert.equal(host.spec?.userData, { name: BOOTSTRAP_SECRET, namespace: scene.ns });
  assert.is(host.spec?.online, true);
  assert.is(host.spec?.automatedCleaningMode, 'metadata');
  assert.is(host.status?.provisioning?.state, 'provisioned');
  const bmc = await scene.client.api(SecretResource, scene.ns).get('host-0-bmc-secret');
  assert.is(bmc.metadata.labels?.['cluster.x-k8s.io/cluster-name'], CLUSTER, 'M-26: the BMC Secret is labelled');
  // M-26 (changed): the machine records that the label landed, so later passes make no request for it.
  assert.is(m3m.metadata.annotations?.[BMC_SECRET_LABELLED_ANNOTATION], `${scene.ns}/host-0/host-0-bmc-secret`);
  assert.is(scene.controller.writes('secrets'), 1, 'M-26: one label write, not one per pass');

  // P-1, P-8, P-11: the new format, on the Node the kubelet labelled with the host's UID
  const providerID = `metal3://${scene.ns}/host-0/m-0`;
  assert.is(m3m.spec?.providerID, providerID);
  const nodes = await workloadNodes(scene.client, scene.ns);
  const node = nodes.find((n) => n.metadata.labels?.['metal3.io/uuid'] === host.metadata.uid);
  assert.ok(node, 'the kubelet registered a Node labelled with the host UID');
  assert.is(node?.spec?.providerID, providerID);

  // M-31: addresses from the host's NICs and hostname
  const hostname = host.status?.hardware?.hostname ?? '';
  const ips = (host.status?.hardware?.nics ?? []).filter((n) => n.ip).map((n) => ({ type: 'InternalIP', address: n.ip }));
  assert.equal(m3m.status?.addresses, [...ips, { type: 'Hostname', address: hostname }, { type: 'InternalDNS', address: hostname }]);

  // §0.3, M-42: both condition sets
  assert.is(v1(m3m, 'AssociateBMH'), 'True//');
  assert.is(v1(m3m, 'Ready'), 'True//');
  assert.is(v2(m3m, 'AssociateBareMetalHost'), 'True/AssociateBareMetalHostSuccess');
  assert.is(v2(m3m, 'AssociateMetal3MachineMetaData'), 'True/AssociateMetal3MachineMetaDataSuccess');
  assert.is(v2(m3m, 'Metal3DataReady'), 'True/SecretsSetExternally');
  assert.is(v2(m3m, 'Ready'), 'True/Ready');
  assert.ok((await eventsFor(scene.client, scene.ns, 'm-0', 'HostAssociated')).length >= 1);

  // seed 002: Cluster API copies the provider ID and finds the Node
  const machine = await machineWithNode(scene.client, scene.ns, 'm-0');
  assert.is(machine.spec?.providerID, providerID);
  assert.is(machine.status?.nodeRef?.name, node?.metadata.name);
  assert.is(scene.controller.errors(), 0);
  assert.equal(scene.controller.problems(), []);
});

test('M-19: a settled machine costs no write', async () => {
  const before = scene.controller.writes();
  const reconciles = scene.controller.reconciles();
  await scene.client.api(Metal3MachineResource, scene.ns).mergePatch('m-0', { metadata: { labels: { touched: 'yes' } } });
  // The label change passes metal3MachineChanged: wait for the reconcile it caused, not for a time.
  await settled(scene.controller, reconciles);
  assert.is(scene.controller.writes(), before, 'a label change on a settled machine writes nothing');
});

test('X-1…X-16: deleting the Metal3Machine deprovisions and releases the host, then the finalizer goes', async () => {
  await scene.client.api(Metal3MachineResource, scene.ns).delete('m-0');
  await gone(scene.client, Metal3MachineResource, scene.ns, 'm-0', 30_000);
  const host = await hostWhen(
    scene.client,
    scene.ns,
    'host-0',
    'host-0 available again',
    (h) => h.status?.provisioning?.state === 'available' && !h.spec?.consumerRef,
    30_000,
  );
  assert.is(host.spec?.image, undefined, 'X-5');
  assert.is(host.spec?.userData, undefined, 'X-5: status.userData was set');
  assert.is(host.spec?.online, false, 'X-6: fast track off');
  assert.is(host.metadata.ownerReferences, undefined, 'X-13');
  assert.is(host.metadata.labels?.['cluster.x-k8s.io/cluster-name'], undefined, 'X-14');
  const bmc = await scene.client.api(SecretResource, scene.ns).get('host-0-bmc-secret');
  assert.is(bmc.metadata.labels?.['cluster.x-k8s.io/cluster-name'], undefined, 'X-4');
  assert.is(scene.controller.errors(), 0);
});

test.run();
