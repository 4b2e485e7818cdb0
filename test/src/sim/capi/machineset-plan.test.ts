import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine, MachineSet } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { machineForSet, machineLabels } from './machineset-machine.ts';
import { TerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import { availableFrom, machineSetStatus, planMachineSet } from './machineset-plan.ts';
import { InvalidSelectorError } from './machineset-selector.ts';

const test = suite('MachineSet planning (pure)');

const ms: MachineSet = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name: 'ms', namespace: 'ns', uid: 'ms-uid', generation: 4, labels: { 'cluster.x-k8s.io/deployment-name': 'md' } },
  spec: {
    clusterName: 'c1',
    replicas: 3,
    selector: { matchLabels: { pool: 'w' } },
    template: {
      metadata: { labels: { pool: 'w', 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: { a: 'b' } },
      spec: {
        clusterName: 'c1',
        version: 'v1.31.0',
        nodeDrainTimeout: '30s',
        bootstrap: { configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate', name: 'kct' } },
        infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3MachineTemplate', name: 'm3mt' },
      },
    },
  },
};

let seq = 0;
function machine(
  opts: {
    name?: string;
    labels?: Record<string, string>;
    controller?: string | null;
    ns?: string;
    deleting?: boolean;
    running?: boolean;
    created?: string;
    readySince?: string;
  } = {},
): Machine {
  const name = opts.name ?? `m-${seq++}`;
  const controller = opts.controller === undefined ? 'ms-uid' : opts.controller;
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: opts.ns ?? 'ns',
      labels: opts.labels ?? { pool: 'w', 'cluster.x-k8s.io/cluster-name': 'c1' },
      creationTimestamp: opts.created ?? `2030-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
      ...(controller
        ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'x', uid: controller, controller: true }] }
        : {}),
      ...(opts.deleting ? { deletionTimestamp: '2030-01-02T00:00:00Z', finalizers: ['machine.cluster.x-k8s.io'] } : {}),
    },
    spec: { clusterName: 'c1', bootstrap: {}, infrastructureRef: {} },
    status: opts.running
      ? {
        phase: 'Running',
        nodeRef: { kind: 'Node', name },
        ...(opts.readySince ? { conditions: [{ type: 'NodeHealthy', status: 'True', lastTransitionTime: opts.readySince }] } : {}),
      }
      : { phase: 'Provisioning' },
  };
}

const withReplicas = (n: number | undefined, extra: Partial<MachineSet['spec']> = {}): MachineSet => ({
  ...ms,
  spec: { ...ms.spec!, ...extra, ...(n === undefined ? { replicas: undefined } : { replicas: n }) },
});

test('no Machines: create all replicas', () => {
  const plan = planMachineSet(ms, []);
  assert.is(plan.create, 3);
  assert.equal(plan.delete, []);
});

test('replicas defaults to 1', () => {
  const spec = { ...ms.spec! };
  delete spec.replicas;
  assert.is(planMachineSet({ ...ms, spec }, []).create, 1);
});

test('Machines of other sets, other namespaces or not matching the selector are not counted', () => {
  const plan = planMachineSet(ms, [
    machine({ controller: 'other-uid' }),
    machine({ ns: 'elsewhere' }),
    machine({ labels: { pool: 'x' } }),
    machine(),
  ]);
  assert.is(plan.machines.length, 1);
  assert.is(plan.create, 2);
});

test('matching orphans are adopted and counted; deleting orphans are left alone', () => {
  const orphan = machine({ controller: null });
  const plan = planMachineSet(ms, [orphan, machine({ controller: null, deleting: true }), machine()]);
  assert.equal(plan.adopt.map((m) => m.metadata.name), [orphan.metadata.name]);
  assert.is(plan.machines.length, 2);
  assert.is(plan.create, 1);
});

test('an empty selector claims nothing', () => {
  const plan = planMachineSet(withReplicas(1, { selector: {} }), [machine({ controller: null })]);
  assert.equal(plan.adopt, []);
  assert.is(plan.create, 1);
});

test('a selector apimachinery would refuse stops planning with a terminal error, even with no Machines around', () => {
  const bad = withReplicas(1, { selector: { matchExpressions: [{ key: 'pool', operator: 'Bogus' }] } });
  assert.throws(() => planMachineSet(bad, []), (e: unknown) => e instanceof InvalidSelectorError && e instanceof TerminalError);
});

test('scale down deletes the oldest excess Machines', () => {
  const a = machine({ running: true, created: '2030-01-01T00:00:01Z' });
  const b = machine({ running: true, created: '2030-01-01T00:00:02Z' });
  const c = machine({ running: true, created: '2030-01-01T00:00:03Z' });
  const plan = planMachineSet(withReplicas(1), [c, b, a]);
  assert.equal(plan.delete.map((m) => m.metadata.name), [a.metadata.name, b.metadata.name]);
});

test('a Machine already being deleted counts toward the excess and is not deleted again', () => {
  const going = machine({ running: true, deleting: true, created: '2030-01-01T00:00:09Z' });
  const a = machine({ running: true, created: '2030-01-01T00:00:01Z' });
  const b = machine({ running: true, created: '2030-01-01T00:00:02Z' });
  assert.equal(planMachineSet(withReplicas(2), [a, b, going]).delete, []);
  assert.equal(planMachineSet(withReplicas(1), [a, b, going]).delete.map((m) => m.metadata.name), [a.metadata.name]);
});

test('a Machine being deleted is not replaced while it still exists', () => {
  const plan = planMachineSet(withReplicas(2), [machine({ running: true }), machine({ running: true, deleting: true })]);
  assert.is(plan.create, 0);
});

test('status: replicas count every Machine, ready only Running ones not being deleted', () => {
  const machines = [machine({ running: true }), machine({ running: true, deleting: true }), machine(), machine({ running: true, labels: { pool: 'w' } })];
  const { status, nextAvailableAt } = machineSetStatus(ms, machines, Date.parse('2030-02-01T00:00:00Z'));
  assert.equal(
    {
      replicas: status.replicas,
      fully: status.fullyLabeledReplicas,
      ready: status.readyReplicas,
      available: status.availableReplicas,
      selector: status.selector,
      gen: status.observedGeneration,
    },
    { replicas: 4, fully: 3, ready: 2, available: 2, selector: 'pool=w', gen: 4 },
  );
  assert.is(nextAvailableAt, undefined);
});

test('status: minReadySeconds delays availability and says when to look again', () => {
  const set = withReplicas(2, { minReadySeconds: 60 });
  const machines = [machine({ running: true, readySince: '2030-01-01T00:00:00Z' }), machine({ running: true, readySince: '2030-01-01T00:00:30Z' })];
  const now = Date.parse('2030-01-01T00:01:10Z');
  const { status, nextAvailableAt } = machineSetStatus(set, machines, now);
  assert.is(status.readyReplicas, 2);
  assert.is(status.availableReplicas, 1);
  assert.is(nextAvailableAt, Date.parse('2030-01-01T00:01:30Z'));
  assert.is(availableFrom(machine(), 60), undefined);
});

test('the Machine of a set: template spec, refs, labels with set and deployment names, controller owner, finalizer', () => {
  const m = machineForSet(ms, 'ms-abcde', {
    infrastructureRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'ms-abcde', namespace: 'ns' },
    bootstrapConfigRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'ms-abcde', namespace: 'ns' },
  });
  assert.equal(m.metadata, {
    name: 'ms-abcde',
    namespace: 'ns',
    labels: { pool: 'w', 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/set-name': 'ms', 'cluster.x-k8s.io/deployment-name': 'md' },
    annotations: { a: 'b' },
    ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: 'ms', uid: 'ms-uid', controller: true, blockOwnerDeletion: true }],
    finalizers: ['machine.cluster.x-k8s.io'],
  });
  assert.is(m.spec?.version, 'v1.31.0');
  assert.is(m.spec?.nodeDrainTimeout, '30s');
  assert.is(m.spec?.infrastructureRef.kind, 'Metal3Machine');
  assert.equal(m.spec?.bootstrap, {
    configRef: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfig', name: 'ms-abcde', namespace: 'ns' },
  });
});

test('a template with a ready-made bootstrap data secret gives Machines that secret and no config', () => {
  const set = structuredClone(ms);
  set.spec!.template!.spec!.bootstrap = { dataSecretName: 'pre-made' };
  const m = machineForSet(set, 'x', { infrastructureRef: { name: 'x' } });
  assert.equal(m.spec?.bootstrap, { dataSecretName: 'pre-made' });
});

test('a long set name becomes a hashed label value of at most 63 characters', () => {
  const long = { ...ms, metadata: { ...ms.metadata, name: 'x'.repeat(70) } };
  const value = machineLabels(long)['cluster.x-k8s.io/set-name'] ?? '';
  assert.ok(value.length <= 63);
  assert.match(value, /^hash_/);
});

test.run();
