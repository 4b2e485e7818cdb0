import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Machine, type MachineSet, newMachine, newMachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import type { OwnerReference } from '@metal3-ts/generated';
import { controlPlaneReuseName, machineDeploymentReuseName, nodeReuseLabelValue, nodeReuseName, NodeReuseNameError, reuseOwner } from './node-reuse.ts';

const test = suite('node reuse names');

const machine = (owners: OwnerReference[] | undefined, controlPlane = false): Machine =>
  newMachine({
    metadata: {
      name: 'm',
      namespace: 'ns',
      ...(owners ? { ownerReferences: owners } : {}),
      ...(controlPlane ? { labels: { 'cluster.x-k8s.io/control-plane': '' } } : {}),
    },
    spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: {} },
  });
const machineSet = (name: string, uid: string, owners: OwnerReference[] = []): MachineSet =>
  newMachineSet(
    { metadata: { name, namespace: 'ns', uid, ownerReferences: owners }, spec: { clusterName: 'c', selector: {}, template: {} } } as unknown as Omit<
      MachineSet,
      'apiVersion' | 'kind'
    >,
  );
const ref = (apiVersion: string, kind: string, name: string, uid = `uid-${name}`): OwnerReference => ({ apiVersion, kind, name, uid });

function throwsReuse(fn: () => unknown, message: string): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, NodeReuseNameError);
    assert.match((error as Error).message, message);
    return;
  }
  assert.unreachable(`expected NodeReuseNameError ${message}`);
}

test('the cp-/md- prefixes keep a control plane and a MachineDeployment of one name apart', () => {
  assert.is(nodeReuseLabelValue({ controlPlane: 'x' }), 'cp-x');
  assert.is(nodeReuseLabelValue({ machineDeployment: 'x' }), 'md-x');
});

test('N-3: cp- + the first owner in the control-plane group, any kind', () => {
  const m = machine([ref('cluster.x-k8s.io/v1beta1', 'MachineSet', 'ms'), ref('controlplane.cluster.x-k8s.io/v1beta1', 'KubeadmControlPlane', 'kcp')], true);
  assert.is(controlPlaneReuseName(m), 'cp-kcp');
  assert.is(nodeReuseName(m, []), 'cp-kcp');
  throwsReuse(() => controlPlaneReuseName(machine(undefined, true)), 'Machine owner reference is not populated');
  throwsReuse(() => controlPlaneReuseName(machine([ref('a/b/c', 'X', 'x')], true)), 'Failed to parse the group and version');
  throwsReuse(() => controlPlaneReuseName(machine([ref('cluster.x-k8s.io/v1beta1', 'MachineSet', 'ms')], true)), 'ControlPlane name is not found');
});

test('N-4: md- + the MachineDeployment owning the MachineSet that owns the machine (name and uid must match)', () => {
  const owners = [ref('cluster.x-k8s.io/v1beta1', 'MachineSet', 'ms-1', 'uid-1')];
  const sets = [
    machineSet('ms-0', 'uid-0', [ref('cluster.x-k8s.io/v1beta1', 'MachineDeployment', 'md-wrong')]),
    machineSet('ms-1', 'uid-1', [ref('example.com/v1', 'MachineDeployment', 'not-capi'), ref('cluster.x-k8s.io/v1beta1', 'MachineDeployment', 'workers')]),
  ];
  assert.is(machineDeploymentReuseName(machine(owners), sets), 'md-workers');
  assert.is(nodeReuseName(machine(owners), sets), 'md-workers');
  throwsReuse(() => machineDeploymentReuseName(machine(owners), [machineSet('ms-1', 'uid-other')]), 'no MachineSet');
  throwsReuse(() => machineDeploymentReuseName(machine(owners, true), sets), 'Machine is controlplane');
  throwsReuse(() => machineDeploymentReuseName(machine([]), sets), 'Machine owner reference is not populated');
  throwsReuse(() => machineDeploymentReuseName(machine(owners), [machineSet('ms-1', 'uid-1')]), 'Machineset owner reference is not populated');
  throwsReuse(
    () => machineDeploymentReuseName(machine(owners), [machineSet('ms-1', 'uid-1', [ref('v1', 'ConfigMap', 'x')])]),
    'MachineDeployment name is not found',
  );
  throwsReuse(() => machineDeploymentReuseName(machine([ref('x/y/z', 'MachineSet', 'ms-1')]), sets), 'Failed to parse ownerRef Group of Machine');
});

test('B2-15: the owner whose template decides is the one the reuse name comes from: the control plane, or the MachineDeployment', () => {
  const kcp = ref('controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane', 'kcp');
  assert.equal(reuseOwner(machine([kcp], true), []), kcp);
  const md = ref('cluster.x-k8s.io/v1beta2', 'MachineDeployment', 'workers');
  assert.equal(reuseOwner(machine([ref('cluster.x-k8s.io/v1beta2', 'MachineSet', 'ms-1', 'uid-1')]), [machineSet('ms-1', 'uid-1', [md])]), md);
  throwsReuse(() => reuseOwner(machine([]), []), 'Machine owner reference is not populated');
});

test.run();
