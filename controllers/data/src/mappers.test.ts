// D-1…D-3 and the watches beyond upstream: which Metal3Data an event of another kind wakes, and
// DT-2/DT-7/E-43 for templates.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import type { Metal3Data, Metal3DataClaim, Metal3DataTemplate, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { newIPAddress as newCapiIPAddress, newIPAddressClaim } from '@metal3-ts/generated/ipam.cluster.x-k8s.io/v1beta1';
import { newIPAddress, newIPClaim } from '@metal3-ts/generated/ipam.metal3.io/v1alpha1';
import { ObjectStore } from '@metal3-ts/shared/cache/object-store';
import type { IndexFn } from '@metal3-ts/shared/cache/types';
import {
  capiIPAddressToDatas,
  CLAIM_BY_METAL3MACHINE_INDEX,
  claimByMetal3Machine,
  claimToDatas,
  clusterToDatas,
  DATA_BY_CLAIM_INDEX,
  DATA_BY_CLUSTER_INDEX,
  DATA_BY_TEMPLATE_INDEX,
  dataByClaim,
  dataByCluster,
  dataByTemplate,
  hostToDatas,
  ipAddressToDatas,
  ipClaimToDatas,
  machineToDatas,
  type MapperStores,
  METAL3MACHINE_BY_HOST_INDEX,
  METAL3MACHINE_BY_MACHINE_INDEX,
  metal3MachineByHost,
  metal3MachineByMachine,
  metal3MachineToDatas,
  templateToDatas,
} from './mappers.ts';
import { claim, cluster, data, DATA_UID, host, machine, metal3Machine, NS, template } from './testing.ts';
import { claimToDeletingTemplate, clusterToTemplates, dataToDeletingTemplate, TEMPLATE_BY_CLUSTER_INDEX, templateByCluster } from './data-template/mappers.ts';

const test = suite('event mapping');

function store<T extends KubeObject>(objects: T[], indexes: Record<string, IndexFn<T>> = {}): ObjectStore<T> {
  const s = new ObjectStore<T>();
  for (const [name, fn] of Object.entries(indexes)) s.addIndex(name, fn);
  for (const o of objects) s.apply(o);
  return s;
}

const ready = data((d) => ((d.metadata.name = 'tmpl-1'), (d.spec!.index = 1), (d.spec!.claim = { name: 'm3m' }), (d.status = { ready: true })));
const pending = data();
const owner = [{ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Data', name: 'tmpl-0', uid: DATA_UID, controller: true }];

function stores(datas: Metal3Data[] = [pending, ready]): MapperStores {
  return {
    datas: store(datas, { [DATA_BY_TEMPLATE_INDEX]: dataByTemplate, [DATA_BY_CLAIM_INDEX]: dataByClaim, [DATA_BY_CLUSTER_INDEX]: dataByCluster }),
    claims: store<Metal3DataClaim>([claim()], { [CLAIM_BY_METAL3MACHINE_INDEX]: claimByMetal3Machine }),
    metal3Machines: store<Metal3Machine>([metal3Machine()], {
      [METAL3MACHINE_BY_HOST_INDEX]: metal3MachineByHost,
      [METAL3MACHINE_BY_MACHINE_INDEX]: metal3MachineByMachine,
    }),
    ipClaims: store([newIPClaim({ metadata: { name: 'tmpl-0-pool', namespace: NS, ownerReferences: owner }, spec: { pool: { name: 'pool' } } })]),
    ipAddressClaims: store([
      newIPAddressClaim({ metadata: { name: 'tmpl-0-capi', namespace: NS, ownerReferences: owner }, spec: { poolRef: { kind: 'P', name: 'capi' } } }),
    ]),
  };
}

const pendingOnly = [{ namespace: NS, name: 'tmpl-0' }];

test('template, Metal3Machine, Machine and host wake only the Metal3Data still waiting to be rendered', () => {
  const s = stores();
  assert.equal(templateToDatas(s)(template()), pendingOnly);
  assert.equal(metal3MachineToDatas(s)(metal3Machine()), pendingOnly);
  assert.equal(machineToDatas(s)(machine()), pendingOnly);
  assert.equal(hostToDatas(s)(host()), pendingOnly);
});

test('a deleting Metal3Data is not woken by rendering inputs', () => {
  const s = stores([data((d) => (d.metadata.deletionTimestamp = 'x'))]);
  assert.equal(hostToDatas(s)(host()), []);
});

test('D-7: a claim wakes its Metal3Data whatever its state', () => {
  assert.equal(claimToDatas(stores())(claim()), [
    { namespace: NS, name: 'tmpl-0' },
    { namespace: NS, name: 'tmpl-1' },
  ]);
});

test('D-6: a Cluster wakes the Metal3Data labelled with it', () => {
  assert.equal(clusterToDatas(stores())(cluster()).length, 2);
});

test("D-2/D-3: an IP claim wakes the Metal3Data of its ownerReferences; an address, its claim's owner", () => {
  const s = stores();
  assert.equal(ipClaimToDatas(s.ipClaims!.get({ namespace: NS, name: 'tmpl-0-pool' })!), pendingOnly);
  const address = newIPAddress({
    metadata: { name: 'a', namespace: NS },
    spec: { address: '1.2.3.4', pool: { name: 'pool' }, claim: { name: 'tmpl-0-pool' } },
  });
  assert.equal(ipAddressToDatas(s)(address), pendingOnly);
  const capiAddress = newCapiIPAddress({
    metadata: { name: 'b', namespace: NS },
    spec: { address: '1.2.3.5', prefix: 24, poolRef: { kind: 'P', name: 'capi' }, claimRef: { name: 'tmpl-0-capi' } },
  });
  assert.equal(capiIPAddressToDatas(s)(capiAddress), pendingOnly);
  const stray = newIPAddress({ metadata: { name: 'c', namespace: NS }, spec: { address: '1.2.3.6', pool: { name: 'pool' }, claim: { name: 'unknown' } } });
  assert.equal(ipAddressToDatas(s)(stray), []);
});

test('M-40 (changed), E-29: the host index keys a host of the machine namespace only; another namespace maps to no host', () => {
  const byHost = (value: string) => metal3MachineByHost(metal3Machine((m) => (m.metadata.annotations = { 'metal3.io/BareMetalHost': value })));
  assert.equal(byHost(`${NS}/host`), [`${NS}/host`]);
  assert.equal(byHost('host'), [`${NS}/host`]);
  assert.equal(byHost('other/host'), []);
});

const templates = (...ts: Metal3DataTemplate[]) => store(ts, { [TEMPLATE_BY_CLUSTER_INDEX]: templateByCluster });
const deletingTemplate = template((t) => (t.metadata.deletionTimestamp = 'x'));

test('DT-2/DT-7: claims and Metal3Data wake their template only while it is being deleted', () => {
  assert.equal(claimToDeletingTemplate(templates(template()))(claim()), []);
  assert.equal(claimToDeletingTemplate(templates(deletingTemplate))(claim()), [{ namespace: NS, name: 'tmpl' }]);
  assert.equal(dataToDeletingTemplate(templates(deletingTemplate))(data()), [{ namespace: NS, name: 'tmpl' }]);
});

test('DT-2: a claim naming its template in another namespace maps to nothing', () => {
  assert.equal(claimToDeletingTemplate(templates(deletingTemplate))(claim((c) => (c.spec!.template = { name: 'tmpl', namespace: 'other' }))), []);
});

test('E-43 (fixed): a Cluster wakes the templates naming it', () => {
  assert.equal(clusterToTemplates(templates(template(), template((t) => ((t.metadata.name = 'x'), (t.spec!.clusterName = 'c2')))))(cluster()), [{
    namespace: NS,
    name: 'tmpl',
  }]);
});

test.run();
