// D-7…D-9, E-42: which named phases each guard decision of a Metal3Data reconcile runs, in order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DataGuard } from './guards.ts';
import { planFor } from './reconcile.ts';

const test = suite('Metal3Data reconcile plan');

const rows: [string, DataGuard, string[]][] = [
  ['D-8/D-9: finalizer first, then association, the Secrets as they stand, addresses, the Secrets written', { kind: 'Reconcile' }, [
    'finalizer',
    'associate',
    'secret read',
    'ip claims',
    'secret create',
  ]],
  ['D-7/D-20: the claim goes first, then the IP claims, then our finalizer', { kind: 'Delete' }, [
    'claim deletion',
    'ip claim release',
    'finalizer removal',
  ]],
  ['E-42 (fixed): no cluster-name label: the status says so, no finalizer', { kind: 'MissingClusterLabel' }, ['associate']],
  ['D-6: paused: nothing', { kind: 'Paused' }, []],
  ['D-6: no Cluster: nothing', { kind: 'WaitForCluster', clusterName: 'c1' }, []],
];
for (const [title, decision, steps] of rows) {
  test(title, () => assert.equal(planFor(decision).map((p) => p.step), steps));
}

test.run();
