import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostMergePatch } from '@metal3-ts/baremetal/host-patch';
import { pausedHost, statusAnnotationValue, unpausedHost } from '@metal3-ts/baremetal/pause';
import { isBootstrapReady } from './guards.ts';
import { hostAddresses } from './host-addresses.ts';
import { hostChanged, machineChanged } from './predicates.ts';
import { hostProjection, machineProjection } from './projections.ts';

const test = suite('machine controller projections (M-2, M-7, M-14, M-20)');

const condition = (type: string, status: 'True' | 'False') => ({
  type,
  status,
  lastTransitionTime: '2026-11-27T10:00:00Z',
  reason: 'R',
  message: `${type} says so`,
});

/** A Machine as Cluster API v1.13 leaves it once running, read through the v1beta1 view. */
const machine = (): Machine => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: {
    name: 'm1',
    namespace: 'ns',
    uid: 'u-m1',
    resourceVersion: '42',
    labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/control-plane': '' },
    ownerReferences: [{ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', name: 'kcp', uid: 'u-kcp', controller: true }],
    finalizers: ['machine.cluster.x-k8s.io'],
  },
  spec: {
    clusterName: 'c1',
    bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfig', name: 'kc1' }, dataSecretName: 'kc1' },
    infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m1' },
    failureDomain: 'rack-a',
    providerID: 'metal3://ns/host-1/m3m1',
    version: 'v1.34.2',
    nodeDrainTimeout: '10s',
  },
  status: {
    bootstrapReady: true,
    infrastructureReady: true,
    phase: 'Running',
    nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'u-node' },
    addresses: [{ type: 'InternalIP', address: '172.22.0.2' }, { type: 'Hostname', address: 'node-1' }],
    nodeInfo: {
      architecture: 'amd64',
      bootID: 'b',
      containerRuntimeVersion: 'containerd://2.1.4',
      kernelVersion: '6.8.0',
      kubeProxyVersion: 'v1.34.2',
      kubeletVersion: 'v1.34.2',
      machineID: 'mid',
      operatingSystem: 'linux',
      osImage: 'Ubuntu 24.04',
      systemUUID: 'uuid',
    },
    conditions: [condition('Ready', 'True'), condition('BootstrapReady', 'True'), condition('InfrastructureReady', 'True'), condition('NodeHealthy', 'True')],
    v1beta2: { conditions: [{ ...condition('Available', 'True'), observedGeneration: 1 }] },
    observedGeneration: 1,
    lastUpdated: '2026-11-27T10:00:00Z',
  },
} as Machine);

/** A provisioned host with its hardware inventory, as BMO leaves it. */
const host = (): BareMetalHost => ({
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'host-1', namespace: 'ns', uid: 'u-h1', resourceVersion: '7', labels: { rack: 'a' }, annotations: { note: 'x' } },
  spec: {
    online: true,
    bootMACAddress: '52:54:00:00:00:01',
    consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm3m1', namespace: 'ns' },
  },
  status: {
    errorCount: 0,
    errorMessage: '',
    operationalStatus: 'OK',
    poweredOn: true,
    provisioning: { state: 'provisioned', ID: 'node-1', image: { url: 'http://x/img' } },
    operationHistory: { provision: { start: '2026-11-27T09:00:00Z', end: '2026-11-27T09:05:00Z' } },
    hardware: {
      hostname: 'host-1.lab',
      cpu: { arch: 'x86_64', model: 'CPU', clockMegahertz: 2400, count: 8, flags: ['avx2'] },
      ramMebibytes: 16384,
      firmware: { bios: { vendor: 'v', version: '1', date: '01/01/2026' } },
      systemVendor: { manufacturer: 'm', productName: 'p', serialNumber: 's' },
      storage: [{ name: '/dev/sda', sizeBytes: 1e12, rotational: false }],
      nics: [
        { name: 'enp1s0', mac: '52:54:00:00:00:01', ip: '172.22.0.2', speedGbps: 10, pxe: true, model: 'x' },
        { name: 'enp2s0', mac: '52:54:00:00:00:02', ip: '', speedGbps: 25, pxe: false, lldp: { switchID: 'sw' } },
      ],
    },
  },
} as BareMetalHost);

test('M-2: a Machine is cached with the fields a reconcile reads and the conditions it reads, nothing else', () => {
  const full = machine();
  assert.equal(machineProjection.project(structuredClone(full)), {
    apiVersion: full.apiVersion,
    kind: full.kind,
    metadata: full.metadata,
    spec: {
      bootstrap: full.spec!.bootstrap,
      clusterName: 'c1',
      failureDomain: 'rack-a',
      infrastructureRef: full.spec!.infrastructureRef,
      providerID: 'metal3://ns/host-1/m3m1',
    },
    status: { bootstrapReady: true, conditions: [condition('BootstrapReady', 'True')], nodeRef: full.status!.nodeRef },
  });
  // Fields a Machine does not have stay absent rather than becoming `undefined` keys.
  const bare: Machine = { ...machine(), spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { name: 'm3m1' } } };
  delete bare.status;
  assert.equal(machineProjection.project(bare), { apiVersion: bare.apiVersion, kind: bare.kind, metadata: bare.metadata, spec: bare.spec });
});

test('M-2, M-20: what the reconcile decides from a Machine is the same from its projection', () => {
  for (
    const change of [
      (m: Machine) => m,
      (m: Machine) => (m.status!.bootstrapReady = false, m),
      (m: Machine) => (m.status = { conditions: [condition('BootstrapReady', 'False')] }, m),
      (m: Machine) => (m.spec!.bootstrap = { dataSecretName: 's' }, m),
    ]
  ) {
    const full = change(machine());
    const projected = machineProjection.project(structuredClone(full));
    assert.is(isBootstrapReady(projected), isBootstrapReady(full));
  }
  // The predicate sees a change of a field it watches in both shapes, and none in what is not cached.
  const before = machine();
  const after = machine();
  after.status!.conditions = [condition('Ready', 'False'), condition('BootstrapReady', 'True')];
  after.status!.nodeInfo!.kernelVersion = '6.9.0';
  const project = (m: Machine) => machineProjection.project(structuredClone(m));
  assert.is(machineChanged.update?.(project(before), project(after)), false, 'a change of what is not read does not wake the reconcile');
  after.spec!.providerID = 'metal3://ns/host-2/m3m1';
  assert.is(machineChanged.update?.(project(before), project(after)), true);
});

test('M-7: a host is cached whole but for the hardware details the addresses do not read', () => {
  const full = host();
  const projected = hostProjection.project(structuredClone(full));
  const { hardware: _full, ...status } = full.status!;
  const { hardware, ...projectedStatus } = projected.status!;
  assert.equal(projectedStatus, status, 'the rest of the status is kept');
  assert.equal(hardware, { hostname: 'host-1.lab', nics: [{ name: 'enp1s0', ip: '172.22.0.2' }, { name: 'enp2s0', ip: '' }] });
  assert.equal({ ...projected, status: undefined }, { ...full, status: undefined }, 'metadata and spec are kept');
  const uninspected = { ...host(), status: { ...host().status!, hardware: undefined } };
  delete uninspected.status.hardware;
  assert.is(hostProjection.project(uninspected), uninspected, 'a host without hardware is kept as it is');
});

test('M-7, M-14, M-15: the addresses, the status annotation and every host write are the same from the projection', () => {
  const full = host();
  const projected = hostProjection.project(structuredClone(full));
  assert.equal(hostAddresses(projected), hostAddresses(full));
  assert.is(statusAnnotationValue(projected), statusAnnotationValue(full), 'the annotation leaves hardware out anyway');
  assert.equal(hostMergePatch(projected, pausedHost(projected), { optimisticLock: true }), hostMergePatch(full, pausedHost(full), { optimisticLock: true }));
  const paused = pausedHost(full);
  assert.equal(
    hostMergePatch(hostProjection.project(structuredClone(paused)), unpausedHost(hostProjection.project(structuredClone(paused)))),
    hostMergePatch(paused, unpausedHost(paused)),
  );
  // The predicate still sees the addresses change.
  const readdressed = host();
  readdressed.status!.hardware!.nics![1]!.ip = '192.168.0.2';
  assert.is(hostChanged.update?.(projected, hostProjection.project(readdressed)), true);
  const reinspected = host();
  reinspected.status!.hardware!.storage![0]!.sizeBytes = 2e12;
  assert.is(hostChanged.update?.(projected, hostProjection.project(reinspected)), false, 'a change of what is not read does not wake the reconcile');
});

test.run();
