// The contract readers and the ownership rule, as tables.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '@metal3-ts/generated';
import { AlreadyOwnedError } from '@metal3-ts/shared/meta/owner-references';
import {
  addressesOf,
  CLUSTER_NAME_LABEL,
  completeRef,
  type ContractObject,
  ContractViolationError,
  controlPlaneEndpointOf,
  dataSecretNameOf,
  descriptorForRef,
  failuresFrom,
  InvalidReferenceError,
  isReady,
  mirrorReadyCondition,
  objectKey,
  providerIdOf,
  referenceKey,
  takeOwnership,
  UnknownKindError,
} from './contract.ts';

const test = suite('CAPI contract helpers');

const provider = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): ContractObject => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'Metal3Machine',
  metadata: { name: 'm3m', namespace: 'ns' },
  spec,
  status,
});

const machine: KubeObject = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm', namespace: 'ns', uid: 'uid-m' } };

function throwsKind(fn: () => unknown, kind: abstract new (...args: never[]) => Error): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, kind);
    return;
  }
  assert.unreachable(`expected ${kind.name}`);
}

test('a reference resolves through the generated registry to any registered namespaced kind', () => {
  assert.is(descriptorForRef({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Cluster' }).plural, 'metal3clusters');
  assert.is(descriptorForRef({ apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig' }).plural, 'kubeadmconfigs');
  assert.is(descriptorForRef({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' }).kind, 'BareMetalHost');
  throwsKind(() => descriptorForRef({ apiVersion: 'example.com/v1', kind: 'FooMachine' }), UnknownKindError);
  throwsKind(() => descriptorForRef({ apiVersion: 'v1', kind: 'Node' }), UnknownKindError);
  throwsKind(() => descriptorForRef({ kind: 'Metal3Machine' }), InvalidReferenceError);
});

test('references default to the referrer namespace and compare without their version', () => {
  const ref = completeRef({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'a' }, 'ns');
  assert.equal(ref, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'a', namespace: 'ns' });
  assert.is(referenceKey(ref), referenceKey({ ...ref, apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha5' }));
  assert.is(referenceKey(ref), objectKey({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'a', namespace: 'ns' } }));
  throwsKind(() => completeRef({ kind: 'Metal3Machine', name: 'a' }, 'ns'), InvalidReferenceError);
  throwsKind(() => completeRef(undefined, 'ns'), InvalidReferenceError);
});

test('contract fields are read by path and type-checked', () => {
  assert.ok(isReady(provider({}, { ready: true })));
  assert.not.ok(isReady(provider({}, { ready: 'true' })), 'a string is not the boolean the contract asks for');
  assert.not.ok(isReady(provider()));
  assert.is(providerIdOf(provider({ providerID: 'metal3://a/b/c' })), 'metal3://a/b/c');
  assert.is(providerIdOf(provider()), undefined);
  throwsKind(() => providerIdOf(provider({ providerID: 7 })), ContractViolationError);
  assert.is(dataSecretNameOf(provider({}, { dataSecretName: 'm-0' })), 'm-0');
  assert.equal(failuresFrom(provider({}, { failureReason: 'CreateError', failureMessage: 'boom' })), { reason: 'CreateError', message: 'boom' });
  assert.equal(failuresFrom(provider()), {});
  assert.equal(addressesOf(provider({}, { addresses: [{ type: 'InternalIP', address: '192.168.111.21' }] })), [{
    type: 'InternalIP',
    address: '192.168.111.21',
  }]);
  assert.is(addressesOf(provider()), undefined);
  throwsKind(() => addressesOf(provider({}, { addresses: [{ type: 'Bogus', address: 'x' }] })), ContractViolationError);
  assert.equal(controlPlaneEndpointOf(provider({ controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } })), { host: '192.168.111.249', port: 6443 });
  assert.is(controlPlaneEndpointOf(provider({ controlPlaneEndpoint: { host: '', port: 6443 } })), undefined);
  assert.is(controlPlaneEndpointOf(provider({ controlPlaneEndpoint: { host: 'h', port: 0 } })), undefined);
});

test('taking ownership drops on-create owners, makes the referrer controller and labels the cluster', () => {
  const obj = provider();
  obj.metadata.ownerReferences = [
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: 'uid-ms' },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'uid-cm' },
  ];
  assert.ok(takeOwnership(obj, machine, 'c1', [{ group: 'cluster.x-k8s.io', kind: 'MachineSet' }]));
  assert.equal(obj.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'uid-cm' },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'm', uid: 'uid-m', controller: true, blockOwnerDeletion: true },
  ]);
  assert.is(obj.metadata.labels?.[CLUSTER_NAME_LABEL], 'c1');
  assert.not.ok(takeOwnership(obj, machine, 'c1'), 'a second pass changes nothing');
});

test('taking ownership of an object another controller owns fails with AlreadyOwnedError', () => {
  const obj = provider();
  obj.metadata.ownerReferences = [{ apiVersion: 'example.com/v1', kind: 'Other', name: 'o', uid: 'uid-o', controller: true }];
  throwsKind(() => takeOwnership(obj, machine, 'c1'), AlreadyOwnedError);
});

test('mirroring copies the provider Ready condition, else falls back on status.ready', () => {
  const target: { status?: { conditions?: import('@metal3-ts/generated').Condition[] } } = {};
  mirrorReadyCondition(target, 'InfrastructureReady', provider(), { ready: false, reason: 'WaitingForInfrastructure' });
  assert.equal(
    target.status?.conditions?.map(({ type, status, reason, severity }) => ({ type, status, reason, severity })),
    [{ type: 'InfrastructureReady', status: 'False', reason: 'WaitingForInfrastructure', severity: 'Info' }],
  );
  mirrorReadyCondition(target, 'InfrastructureReady', provider(), { ready: true, reason: 'WaitingForInfrastructure' });
  assert.is(target.status?.conditions?.[0]?.status, 'True');
  assert.is(target.status?.conditions?.[0]?.reason, undefined);
  const withReady = provider({}, {
    conditions: [{
      type: 'Ready',
      status: 'False',
      severity: 'Warning',
      reason: 'AssociateBMHFailed',
      message: 'no host',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    }],
  });
  mirrorReadyCondition(target, 'InfrastructureReady', withReady, { ready: true, reason: 'WaitingForInfrastructure' });
  const mirrored = target.status?.conditions?.[0];
  assert.equal([mirrored?.status, mirrored?.severity, mirrored?.reason, mirrored?.message], ['False', 'Warning', 'AssociateBMHFailed', 'no host']);
});

test.run();
