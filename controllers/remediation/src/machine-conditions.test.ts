// RS-15, RS-19, research S-1: the conditions that hand a Machine back to Cluster API, in both of the
// versions it may be read at (S-10). controllers/remediation/test covers the writes on a real apiserver.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { ownerRemediatedCondition, withOwnerRemediated } from './machine-conditions.ts';

const machine = (conditions?: { type: string; status: 'True' | 'False' | 'Unknown'; lastTransitionTime: string }[]): Machine => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm', namespace: 'ns', generation: 3 },
  spec: { clusterName: 'c', bootstrap: {}, infrastructureRef: {} },
  status: conditions ? { v1beta2: { conditions: conditions.map((c) => ({ ...c, reason: 'R', message: '' })) } } : {},
});

test('RS-19 v1beta1: OwnerRemediated False/WaitingForRemediation in both condition lists (Warning in the v1beta1 one)', () => {
  const next = withOwnerRemediated(machine());
  const v1 = next.status?.conditions?.find((c) => c.type === 'OwnerRemediated');
  assert.equal([v1?.status, v1?.reason, v1?.severity], ['False', 'WaitingForRemediation', 'Warning']);
  const v2 = next.status?.v1beta2?.conditions?.find((c) => c.type === 'OwnerRemediated');
  assert.equal([v2?.status, v2?.reason, v2?.message], ['False', 'WaitingForRemediation', 'Waiting for remediation']);
});

test("RS-19 S-10 v1beta2: the one condition applied, with the Machine's generation; its transition time kept while it stays False", () => {
  const now = '2026-11-26T12:00:00Z';
  assert.equal(ownerRemediatedCondition(machine(), now), {
    type: 'OwnerRemediated',
    status: 'False',
    reason: 'WaitingForRemediation',
    message: 'Waiting for remediation',
    lastTransitionTime: now,
    observedGeneration: 3,
  });
  const earlier = '2026-11-26T11:00:00Z';
  assert.is(ownerRemediatedCondition(machine([{ type: 'OwnerRemediated', status: 'False', lastTransitionTime: earlier }]), now).lastTransitionTime, earlier);
  assert.is(ownerRemediatedCondition(machine([{ type: 'OwnerRemediated', status: 'True', lastTransitionTime: earlier }]), now).lastTransitionTime, now);
});

test.run();
