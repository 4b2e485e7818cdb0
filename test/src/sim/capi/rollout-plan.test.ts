import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { InvalidRolloutStrategyError, resolveFenceposts, type RolloutInput, rolloutStep, scaledValue, type SetReplicas } from './rollout-plan.ts';

const test = suite('MachineDeployment rollout steps (pure)');

const set = (name: string, replicas: number, available = replicas, createdAt = `2030-01-01T00:00:0${name.length % 10}Z`, actual = replicas): SetReplicas => ({
  name,
  replicas,
  availableReplicas: available,
  actualReplicas: actual,
  createdAt,
});

test('fenceposts: defaults 1/0, percentages round surge up and unavailable down, 0/0 becomes 0/1', () => {
  assert.equal(resolveFenceposts(undefined, 3), { maxSurge: 1, maxUnavailable: 0 });
  assert.equal(resolveFenceposts({ maxSurge: '25%', maxUnavailable: '25%' }, 3), { maxSurge: 1, maxUnavailable: 0 });
  assert.equal(resolveFenceposts({ maxSurge: '50%', maxUnavailable: '50%' }, 5), { maxSurge: 3, maxUnavailable: 2 });
  assert.equal(resolveFenceposts({ maxSurge: 0, maxUnavailable: 0 }, 3), { maxSurge: 0, maxUnavailable: 1 });
  assert.equal(resolveFenceposts({ maxSurge: 2, maxUnavailable: 1 }, 3), { maxSurge: 2, maxUnavailable: 1 });
  assert.is(scaledValue('100%', 7, true), 7);
  assert.throws(() => scaledValue('abc', 3, true), (e: unknown) => e instanceof InvalidRolloutStrategyError);
  assert.throws(() => scaledValue(-1, 3, true), (e: unknown) => e instanceof InvalidRolloutStrategyError);
});

const steps: { name: string; input: RolloutInput; newReplicas: number; old: Record<string, number> }[] = [
  { name: 'first set of a new deployment gets all replicas', input: { desired: 3, newSet: set('new', 0, 0), oldSets: [] }, newReplicas: 3, old: {} },
  { name: 'scale up without rollout', input: { desired: 5, newSet: set('new', 3), oldSets: [] }, newReplicas: 5, old: {} },
  { name: 'scale down without rollout', input: { desired: 2, newSet: set('new', 3), oldSets: [] }, newReplicas: 2, old: {} },
  { name: 'steady state: nothing changes', input: { desired: 3, newSet: set('new', 3), oldSets: [set('old', 0, 0)] }, newReplicas: 3, old: {} },
  {
    name: 'rollout starts: new set surges by one, old untouched (nothing new available yet)',
    input: { desired: 3, newSet: set('new', 0, 0), oldSets: [set('old', 3)] },
    newReplicas: 1,
    old: {},
  },
  {
    name: 'waiting: the surged Machine is not available yet',
    input: { desired: 3, newSet: set('new', 1, 0), oldSets: [set('old', 3)] },
    newReplicas: 1,
    old: {},
  },
  {
    name: 'surged Machine available: old set gives one up',
    input: { desired: 3, newSet: set('new', 1, 1), oldSets: [set('old', 3)] },
    newReplicas: 1,
    old: { old: 2 },
  },
  { name: 'then the new set grows into the room', input: { desired: 3, newSet: set('new', 1, 1), oldSets: [set('old', 2)] }, newReplicas: 2, old: {} },
  {
    name: 'last old Machine goes once the new set is fully available',
    input: { desired: 3, newSet: set('new', 3, 3), oldSets: [set('old', 1)] },
    newReplicas: 3,
    old: { old: 0 },
  },
  {
    name: 'maxUnavailable 1, maxSurge 0: old set shrinks first',
    input: { desired: 3, strategy: { maxSurge: 0, maxUnavailable: 1 }, newSet: set('new', 0, 0), oldSets: [set('old', 3)] },
    newReplicas: 0,
    old: { old: 2 },
  },
  {
    name: 'maxUnavailable 1, maxSurge 0: new set grows into the freed slot',
    input: { desired: 3, strategy: { maxSurge: 0, maxUnavailable: 1 }, newSet: set('new', 0, 0), oldSets: [set('old', 2)] },
    newReplicas: 1,
    old: {},
  },
  {
    name: 'unavailable old Machines are removed first, even when nothing new is available',
    input: { desired: 3, strategy: { maxSurge: 1, maxUnavailable: 1 }, newSet: set('new', 0, 0), oldSets: [set('old', 3, 1)] },
    newReplicas: 1,
    old: { old: 2 },
  },
  {
    name: 'several old sets: the oldest shrinks first',
    input: { desired: 2, newSet: set('new', 2, 2), oldSets: [set('old-b', 1, 1, '2030-01-01T00:00:02Z'), set('old-a', 1, 1, '2030-01-01T00:00:01Z')] },
    newReplicas: 2,
    old: { 'old-a': 0, 'old-b': 0 },
  },
  {
    name: 'an old set whose status still counts Machines it is about to delete cannot over-shrink',
    input: { desired: 3, newSet: set('new', 2, 2), oldSets: [set('old', 2, 3)] },
    newReplicas: 2,
    old: { old: 1 },
  },
  {
    name: 'OnDelete: the new set fills what users deleted from old sets',
    input: { desired: 3, strategy: { type: 'OnDelete' }, newSet: set('new', 0, 0), oldSets: [set('old', 3, 2, undefined, 2)] },
    newReplicas: 1,
    old: { old: 2 },
  },
  {
    name: 'OnDelete: nothing deleted, nothing replaced',
    input: { desired: 3, strategy: { type: 'OnDelete' }, newSet: set('new', 0, 0), oldSets: [set('old', 3)] },
    newReplicas: 0,
    old: {},
  },
  {
    name: 'OnDelete: scaling the deployment down takes from old sets first',
    input: { desired: 2, strategy: { type: 'OnDelete' }, newSet: set('new', 1), oldSets: [set('old', 3)] },
    newReplicas: 1,
    old: { old: 1 },
  },
];

for (const c of steps) {
  test(`step: ${c.name}`, () => {
    const step = rolloutStep(c.input);
    assert.is(step.newReplicas, c.newReplicas);
    assert.equal(Object.fromEntries(step.oldReplicas), c.old);
  });
}

/**
 * Runs a whole rollout: after each step, Machines of the new set become available one at a time and
 * scaled-down Machines disappear at once. Checks the two promises of a rolling update at every step.
 */
function simulate(desired: number, strategy: RolloutInput['strategy'], limits: { maxSurge: number; maxUnavailable: number }): number {
  let newSet = set('new', 0, 0, '2030-01-02T00:00:00Z');
  let oldSet = set('old', desired, desired, '2030-01-01T00:00:00Z');
  for (let round = 1; round <= 50; round++) {
    const step = rolloutStep({ desired, strategy, newSet, oldSets: [oldSet] });
    const oldReplicas = step.oldReplicas.get('old') ?? oldSet.replicas;
    oldSet = set('old', oldReplicas, Math.min(oldSet.availableReplicas, oldReplicas), oldSet.createdAt);
    newSet = set('new', step.newReplicas, Math.min(newSet.availableReplicas, step.newReplicas), newSet.createdAt);
    assert.ok(newSet.replicas + oldSet.replicas <= desired + limits.maxSurge, `round ${round}: ${newSet.replicas}+${oldSet.replicas} Machines exceed surge`);
    assert.ok(newSet.availableReplicas + oldSet.availableReplicas >= desired - limits.maxUnavailable, `round ${round}: too few available`);
    if (newSet.availableReplicas === desired && oldSet.replicas === 0) return round;
    // One more new Machine becomes available.
    if (newSet.availableReplicas < newSet.replicas) newSet = set('new', newSet.replicas, newSet.availableReplicas + 1, newSet.createdAt);
  }
  throw new Error('rollout did not finish in 50 rounds');
}

test('whole rollouts keep surge and availability bounds and finish', () => {
  assert.ok(simulate(3, undefined, { maxSurge: 1, maxUnavailable: 0 }) <= 10);
  assert.ok(simulate(3, { maxSurge: 0, maxUnavailable: 1 }, { maxSurge: 0, maxUnavailable: 1 }) <= 10);
  assert.ok(simulate(10, { maxSurge: '20%', maxUnavailable: '10%' }, { maxSurge: 2, maxUnavailable: 1 }) <= 30);
  assert.ok(simulate(1, undefined, { maxSurge: 1, maxUnavailable: 0 }) <= 5);
});

test.run();
