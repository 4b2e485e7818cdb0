import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { machinesToDelete } from './machineset-delete-policy.ts';
import { generateName, randomSuffix } from './machineset-names.ts';

const test = suite('MachineSet delete policy and generated names');

function machine(
  name: string,
  created: string,
  extra: { deleting?: boolean; annotated?: boolean; running?: boolean; failed?: boolean; nodeUnhealthy?: boolean } = {},
): Machine {
  const { deleting = false, annotated = false, running = true, failed = false, nodeUnhealthy = false } = extra;
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      creationTimestamp: created,
      ...(deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
      ...(annotated ? { annotations: { 'cluster.x-k8s.io/delete-machine': '' } } : {}),
    },
    spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: {} },
    status: {
      ...(running ? { nodeRef: { kind: 'Node', name } } : {}),
      ...(failed ? { failureReason: 'CreateError' } : {}),
      ...(nodeUnhealthy ? { conditions: [{ type: 'NodeHealthy', status: 'False', lastTransitionTime: '2030-01-01T00:00:00Z' }] } : {}),
    },
  };
}

const old = machine('m-old', '2030-01-01T00:00:01Z');
const mid = machine('m-mid', '2030-01-01T00:00:02Z');
const young = machine('m-young', '2030-01-01T00:00:03Z');
const names = (ms: readonly Machine[]) => ms.map((m) => m.metadata.name);

const cases: { name: string; machines: Machine[]; count: number; policy?: 'Random' | 'Newest' | 'Oldest'; want: string[] }[] = [
  { name: 'nothing to delete', machines: [old, mid], count: 0, want: [] },
  { name: 'default policy deletes the oldest first', machines: [young, old, mid], count: 1, want: ['m-old'] },
  { name: 'Oldest policy', machines: [young, mid, old], count: 2, policy: 'Oldest', want: ['m-old', 'm-mid'] },
  { name: 'Newest policy', machines: [old, young, mid], count: 2, policy: 'Newest', want: ['m-young', 'm-mid'] },
  {
    name: 'the delete-machine annotation wins over age',
    machines: [old, machine('m-marked', '2030-01-01T00:00:09Z', { annotated: true })],
    count: 1,
    want: ['m-marked'],
  },
  {
    name: 'a Machine being deleted ranks first (it counts toward the excess)',
    machines: [machine('m-marked', '2030-01-01T00:00:09Z', { annotated: true }), machine('m-going', '2030-01-01T00:00:09Z', { deleting: true })],
    count: 1,
    want: ['m-going'],
  },
  {
    name: 'a Machine without a node ranks before healthy ones',
    machines: [old, machine('m-pending', '2030-01-01T00:00:09Z', { running: false })],
    count: 1,
    want: ['m-pending'],
  },
  {
    name: 'a failed Machine ranks before healthy ones',
    machines: [old, machine('m-failed', '2030-01-01T00:00:09Z', { failed: true })],
    count: 1,
    want: ['m-failed'],
  },
  {
    name: 'NodeHealthy False ranks before healthy ones',
    machines: [old, machine('m-sick', '2030-01-01T00:00:09Z', { nodeUnhealthy: true })],
    count: 1,
    want: ['m-sick'],
  },
  {
    name: 'same creation second: ties broken by name',
    machines: [machine('m-b', '2030-01-01T00:00:01Z'), machine('m-a', '2030-01-01T00:00:01Z')],
    count: 1,
    want: ['m-a'],
  },
  { name: 'asking for more than exist returns all', machines: [old, mid], count: 5, want: ['m-old', 'm-mid'] },
];

for (const c of cases) {
  test(`delete order: ${c.name}`, () => {
    assert.equal(names(machinesToDelete(c.machines, c.count, c.policy)), c.want);
  });
}

test('generated names: base plus 5 characters from the apiserver alphabet, cut to 63', () => {
  let i = 0;
  const seq = () => [0, 0.5, 0.99, 0.2, 0.7][i++ % 5] ?? 0;
  const suffix = randomSuffix(seq);
  assert.match(suffix, /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.is(generateName('ms-', () => 0), 'ms-bbbbb');
  const long = generateName(`${'x'.repeat(80)}-`);
  assert.is(long.length, 63);
});

test.run();
