// stampGeneration (issue 20): the v1beta2 conditions a pass derived observe the generation its own
// spec write produced, and only when that write alone moved it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { stampGeneration } from './machine-patch.ts';

const test = suite('Metal3Machine final patch: stampGeneration');

const machine = (...generations: (number | undefined)[]): Metal3Machine =>
  ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'm', namespace: 'ns', generation: 1 },
    status: {
      v1beta2: {
        conditions: generations.map((g, i) => ({
          type: `C${i}`,
          status: 'True',
          reason: 'R',
          lastTransitionTime: '2026-11-25T10:00:00Z',
          ...(g === undefined ? {} : { observedGeneration: g }),
        })),
      },
    },
  }) as Metal3Machine;
const observed = (m: Metal3Machine) => m.status?.v1beta2?.conditions?.map((c) => c.observedGeneration);

test('issue 20: the generation our spec write produced (one step) replaces the one the pass derived from; others stay', () => {
  const cases: [string, number | undefined, number | undefined, (number | undefined)[]][] = [
    ['our write moved it by one', 1, 2, [2, 0, 2, undefined]],
    ['nothing moved', 1, 1, [1, 0, 1, undefined]],
    ['someone else changed the spec too: their pass stamps it', 1, 3, [1, 0, 1, undefined]],
    ['no generation known', undefined, 2, [1, 0, 1, undefined]],
  ];
  for (const [what, from, to, want] of cases) {
    const desired = machine(1, 0, 1, undefined);
    assert.equal(observed(stampGeneration(desired, from, to)), want, what);
    assert.equal(observed(desired), [1, 0, 1, undefined], `${what}: the input is not changed`);
  }
});

test.run();
