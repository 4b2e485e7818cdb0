// S-10, CO-1…CO-12: what of a v1beta2 Cluster, Machine and MachineSet the controllers get, in the
// v1beta1 shape they read. These tables list every projected field.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type * as v1beta2 from '@metal3-ts/generated/cluster.x-k8s.io/v1beta2';
import { apiGroupOf } from '../meta/owner-references.ts';
import { clusterFromV1beta2, machineFromV1beta2, machineSetFromV1beta2, referenceFromV1beta2 } from './projection.ts';

const metadata = { name: 'c1', namespace: 'ns', uid: 'u1', labels: { a: 'b' }, ownerReferences: [{ apiVersion: 'x/v1', kind: 'K', name: 'n', uid: 'u' }] };
const condition = { type: 'Available', status: 'True' as const, reason: 'Available', message: '', lastTransitionTime: '2026-11-26T00:00:00Z' };

test('S-10 CO-2 CO-4 CO-6 a v1beta2 Cluster: paused, references, initialization as the v1beta1 fields, v1beta2 conditions kept, deprecated ones dropped', () => {
  const cluster: v1beta2.Cluster = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata,
    spec: {
      paused: true,
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Cluster', name: 'm3c' },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'kcp' },
      controlPlaneEndpoint: { host: '192.0.2.1', port: 6443 },
    },
    status: {
      initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
      conditions: [condition],
      deprecated: { v1beta1: { conditions: [{ type: 'InfrastructureReady', status: 'False', lastTransitionTime: '2026-11-26T00:00:00Z' }] } },
    },
  };
  assert.equal(clusterFromV1beta2(cluster), {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata,
    spec: {
      paused: true,
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/', kind: 'Metal3Cluster', name: 'm3c', namespace: 'ns' },
      controlPlaneRef: { apiVersion: 'controlplane.cluster.x-k8s.io/', kind: 'KubeadmControlPlane', name: 'kcp', namespace: 'ns' },
    },
    status: { infrastructureReady: true, controlPlaneReady: true, v1beta2: { conditions: [condition] } },
  });
  const fresh = clusterFromV1beta2({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata, spec: { paused: false } });
  assert.equal([fresh.spec, fresh.status], [{}, {}], 'not paused, nothing provisioned: absent, as v1beta1 omits false');
});

test('S-10 CO-8 CO-9 CO-10 CO-11 CO-12 a v1beta2 Machine: bootstrap, references, providerID, failure domain, nodeRef, initialization', () => {
  const machine: v1beta2.Machine = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata,
    spec: {
      clusterName: 'c1',
      bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfig', name: 'kc' }, dataSecretName: 'kc-data' },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: 'm3m' },
      providerID: 'metal3://ns/h1/m3m',
      failureDomain: 'rack-1',
      version: 'v1.31.0',
    },
    status: {
      initialization: { bootstrapDataSecretCreated: true, infrastructureProvisioned: true },
      nodeRef: { name: 'node-1' },
      conditions: [condition],
      phase: 'Running',
    },
  };
  assert.equal(machineFromV1beta2(machine), {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata,
    spec: {
      clusterName: 'c1',
      bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/', kind: 'KubeadmConfig', name: 'kc', namespace: 'ns' }, dataSecretName: 'kc-data' },
      infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/', kind: 'Metal3Machine', name: 'm3m', namespace: 'ns' },
      providerID: 'metal3://ns/h1/m3m',
      failureDomain: 'rack-1',
    },
    status: {
      bootstrapReady: true,
      infrastructureReady: true,
      nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
      v1beta2: { conditions: [condition] },
    },
  });
});

test('CO-8 CO-12 a Machine just created: an empty configRef is none, empty strings are unset, no readiness yet', () => {
  const machine = machineFromV1beta2({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata,
    spec: {
      clusterName: 'c1',
      bootstrap: { configRef: { apiGroup: '', kind: '', name: '' } },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Machine', name: 'm3m' },
      providerID: '',
      failureDomain: '',
    },
  });
  assert.equal(machine.spec?.bootstrap, {});
  assert.is(machine.spec?.providerID, undefined);
  assert.is(machine.spec?.failureDomain, undefined);
  assert.equal(machine.status, {});
});

test('CO-1 a projected reference keeps its group for apiGroupOf and names no version', () => {
  const ref = referenceFromV1beta2({ apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Cluster', name: 'm3c' }, 'ns');
  assert.is(apiGroupOf(ref?.apiVersion ?? ''), 'infrastructure.cluster.x-k8s.io');
  assert.is(referenceFromV1beta2(undefined, 'ns'), undefined);
  assert.is(referenceFromV1beta2({ apiGroup: '', kind: '', name: '' }, 'ns'), undefined);
});

test('N-4 a MachineSet is read for its identity: metadata (owners, uid) only', () => {
  const set = machineSetFromV1beta2({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineSet',
    metadata,
    spec: {
      clusterName: 'c1',
      selector: {},
      template: { spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: { apiGroup: 'g', kind: 'k', name: 'n' } } },
    },
  } as v1beta2.MachineSet);
  assert.equal(set, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', metadata });
});

test.run();
