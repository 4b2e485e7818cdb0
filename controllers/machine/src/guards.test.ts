import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { Metal3Cluster, Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { guard, isBootstrapReady, isCloudProviderEnabled, isInfrastructureReady } from './guards.ts';

const m3m = (extra: Partial<Metal3Machine['metadata']> = {}, status: Metal3Machine['status'] = {}): Metal3Machine =>
  ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'm', namespace: 'ns', ...extra },
    spec: {},
    status,
  }) as Metal3Machine;
const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns', labels: { 'cluster.x-k8s.io/cluster-name': 'c' } },
  spec: { clusterName: 'c' },
} as unknown as Machine;
const cluster = (spec: Cluster['spec'] = {}, status: Cluster['status'] = { infrastructureReady: true }): Cluster =>
  ({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c', namespace: 'ns' }, spec, status }) as Cluster;
const m3c = { metadata: { name: 'c', namespace: 'ns' }, spec: {} } as unknown as Metal3Cluster;
const ownerRef = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'm', uid: 'u' };
const FINALIZER = 'metal3machine.infrastructure.cluster.x-k8s.io';
const DELETED = '2026-01-01T00:00:00Z';

test('M-9…M-17 order, E-12 changed: every guard decision', () => {
  const full = { machineRef: ownerRef, machine, clusterName: 'c', cluster: cluster(), metal3Cluster: m3c };
  const rows: [string, Parameters<typeof guard>[0], string][] = [
    ['deleting without our finalizer', { ...full, cached: m3m({ deletionTimestamp: DELETED, finalizers: ['other'] }) }, 'NotOurs'],
    ['Cluster paused (M-16)', { ...full, cluster: cluster({ paused: true }), cached: m3m() }, 'Paused'],
    ['annotation paused (M-16)', { ...full, cached: m3m({ annotations: { 'cluster.x-k8s.io/paused': '' } }) }, 'Paused'],
    [
      'paused wins over deletion',
      { ...full, cluster: cluster({ paused: true }), cached: m3m({ deletionTimestamp: DELETED, finalizers: [FINALIZER] }) },
      'Paused',
    ],
    ['deletion needs no owner, Cluster or infrastructure (E-12 changed)', {
      machineRef: undefined,
      machine: undefined,
      clusterName: undefined,
      cluster: undefined,
      metal3Cluster: undefined,
      cached: m3m({ deletionTimestamp: DELETED, finalizers: [FINALIZER] }),
    }, 'Delete'],
    ['no owner reference (M-9)', { ...full, machineRef: undefined, cached: m3m() }, 'WaitForOwnerRef'],
    ['owner Machine missing (M-9 changed)', { ...full, machine: undefined, cached: m3m() }, 'WaitForMachine'],
    ['no cluster label (M-11 changed)', { ...full, clusterName: undefined, cached: m3m() }, 'WaitForCluster'],
    ['Cluster missing (M-11 changed)', { ...full, cluster: undefined, cached: m3m() }, 'WaitForCluster'],
    ['terminal failure (seed 002)', { ...full, cached: m3m({}, { failureReason: 'InvalidConfiguration' }) }, 'Failed'],
    ['infrastructure not ready (M-12)', { ...full, cluster: cluster({}, {}), cached: m3m() }, 'WaitForInfrastructure'],
    ['Metal3Cluster missing (M-13)', { ...full, metal3Cluster: undefined, cached: m3m() }, 'WaitForMetal3Cluster'],
    ['all there', { ...full, cached: m3m() }, 'Reconcile'],
  ];
  for (const [what, scope, kind] of rows) assert.is(guard(scope).kind, kind, what);
});

test('§0.7: infrastructure ready from status.infrastructureReady or the InfrastructureReady condition', () => {
  assert.ok(isInfrastructureReady(cluster({}, { infrastructureReady: true })));
  assert.ok(isInfrastructureReady(cluster({}, { conditions: [{ type: 'InfrastructureReady', status: 'True', lastTransitionTime: DELETED }] })));
  assert.not.ok(isInfrastructureReady(cluster({}, { conditions: [{ type: 'InfrastructureReady', status: 'False', lastTransitionTime: DELETED }] })));
  assert.not.ok(isInfrastructureReady(cluster({}, {})));
});

test('M-20: bootstrap ready from the config when there is a configRef, else from dataSecretName', () => {
  const withBootstrap = (bootstrap: object, status: object = {}) => ({ ...machine, spec: { ...machine.spec, bootstrap }, status }) as unknown as Machine;
  assert.ok(isBootstrapReady(withBootstrap({ dataSecretName: 's' })));
  assert.not.ok(isBootstrapReady(withBootstrap({})));
  const configRef = { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'kc' };
  assert.not.ok(isBootstrapReady(withBootstrap({ configRef, dataSecretName: 's' })), 'a configRef waits for BootstrapReady');
  assert.ok(isBootstrapReady(withBootstrap({ configRef }, { bootstrapReady: true })));
  assert.ok(isBootstrapReady(withBootstrap({ configRef }, { conditions: [{ type: 'BootstrapReady', status: 'True', lastTransitionTime: DELETED }] })));
});

test('P-7: cloud provider enabled iff noCloudProvider is false or cloudProviderEnabled is true', () => {
  const rows: [Metal3Cluster['spec'], boolean][] = [
    [{}, false],
    [{ noCloudProvider: false }, true],
    [{ noCloudProvider: true }, false],
    [{ cloudProviderEnabled: true }, true],
    [{ cloudProviderEnabled: false, noCloudProvider: true }, false],
    [{ cloudProviderEnabled: true, noCloudProvider: false }, true],
  ];
  for (const [spec, enabled] of rows) assert.is(isCloudProviderEnabled({ ...m3c, spec } as Metal3Cluster), enabled, JSON.stringify(spec));
});

test.run();
