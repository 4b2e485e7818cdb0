import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import {
  finishStatus,
  markAssociated,
  markAssociateFailed,
  markAssociateWaiting,
  markDataReady,
  markDataWaiting,
  markMetadataAssociated,
  markNodeProblem,
  markNodeReady,
  markNodeWaiting,
  markPause,
  markSecretsSetExternally,
  type AssociateWait,
} from './status.ts';

const fresh = (): Metal3Machine => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', metadata: { name: 'm', namespace: 'ns' }, spec: {}, status: {} }) as Metal3Machine;
const v1 = (m: Metal3Machine, type: string) => {
  const c = getCondition(m, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}/${c.message ?? ''}` : '-';
};
const v2 = (m: Metal3Machine, type: string) => {
  const c = getV1Beta2Condition(m, type);
  return c ? `${c.status}/${c.reason}/${c.message ?? ''}` : '-';
};

test('§0.3, M-9, M-12, M-13, M-20: association waits in both dialects with upstream reasons and messages', () => {
  const rows: [AssociateWait, string, string][] = [
    [{ kind: 'OwnerRef' }, 'False/WaitingForM3MachineOwnerRef/Info/', 'False/WaitingForMetal3MachineOwnerRef/Waiting for Machine Controller to set OwnerRef on Metal3Machine'],
    [{ kind: 'Infrastructure' }, 'False/WaitingForClusterInfrastructure/Info/Waiting for Metal3Cluster Controller to create cluster infrastructure', 'False/WaitingForClusterInfrastructureReady/Waiting for Metal3Cluster Controller to create cluster infrastructure'],
    [{ kind: 'Metal3Cluster' }, 'False/WaitingforMetal3Cluster/Info/Waiting for Metal3Cluster Controller to create the Metal3Cluster', 'False/WaitingforMetal3Cluster/Waiting for Metal3Cluster Controller to create the Metal3Cluster'],
    [{ kind: 'Bootstrap' }, 'False/WaitingForBootstrapReady/Info/Waiting for bootstrap data to be ready before proceeding', 'False/WaitingForBootstrapData/Waiting for bootstrap data to be ready before proceeding'],
    [{ kind: 'Host', message: 'No available host found: x' }, 'False/AssociateBMHFailed/Info/No available host found: x', 'False/AssociateBareMetalHostFailed/No available host found: x'],
  ];
  for (const [wait, one, two] of rows) {
    const m = fresh();
    markAssociateWaiting(m, wait);
    assert.is(v1(m, 'AssociateBMH'), one, wait.kind);
    assert.is(v2(m, 'AssociateBareMetalHost'), two, wait.kind);
  }
});

test('M-21, M-27: association failed (severity Error) and succeeded', () => {
  const m = fresh();
  markAssociateFailed(m, 'boom');
  assert.is(v1(m, 'AssociateBMH'), 'False/AssociateBMHFailed/Error/boom');
  assert.is(v2(m, 'AssociateBareMetalHost'), 'False/AssociateBareMetalHostFailed/boom');
  markAssociated(m);
  assert.is(v1(m, 'AssociateBMH'), 'True///');
  assert.is(v2(m, 'AssociateBareMetalHost'), 'True/AssociateBareMetalHostSuccess/');
});

test('M-28, X-1, X-2, X-3: node/metadata problems and deletion', () => {
  const rows: [Parameters<typeof markNodeProblem>[1], string, string][] = [
    ['AssociateM3MetaDataFailed', 'False/AssociateM3MetaDataFailed/Warning/x', 'False/AssociateMetal3MachineMetaDataFailed/x'],
    ['Deleting', 'False/Deleting/Info/', 'False/Deleting/'],
    ['DisassociateM3MetaDataFailed', 'False/DisassociateM3MetaDataFailed/Warning/x', 'False/DisassociateM3MetaDataFailed/x'],
    ['DeletionFailed', 'False/DeletionFailed/Warning/x', 'False/DeletionFailed/x'],
  ];
  for (const [step, one, two] of rows) {
    const m = fresh();
    markNodeProblem(m, step, step === 'Deleting' ? '' : 'x');
    assert.is(v1(m, 'KubernetesNodeReady'), one, step);
    assert.is(v2(m, 'AssociateMetal3MachineMetaData'), two, step);
  }
  const m = fresh();
  markMetadataAssociated(m);
  assert.is(v2(m, 'AssociateMetal3MachineMetaData'), 'True/AssociateMetal3MachineMetaDataSuccess/');
});

test('M-36, M-19, P-9: Metal3DataReady waiting, ready, and set externally only when not already True', () => {
  const m = fresh();
  markDataWaiting(m, 'Waiting for Metal3Data to become ready');
  assert.is(v1(m, 'Metal3DataReady'), 'False/WaitingForMetal3Data/Info/Waiting for Metal3Data to become ready');
  assert.is(v2(m, 'Metal3DataReady'), 'False/WaitingForMetal3Data/Waiting for Metal3Data to become ready');
  markDataReady(m);
  markSecretsSetExternally(m);
  assert.is(v2(m, 'Metal3DataReady'), 'True/Metal3DataSecretsReady/', 'a rendered Metal3Data stays the reason');
  const other = fresh();
  markSecretsSetExternally(other);
  assert.is(v1(other, 'Metal3DataReady'), 'True///');
  assert.is(v2(other, 'Metal3DataReady'), 'True/SecretsSetExternally/');
});

test('M-14…M-16, E-4 changed: Paused, NotPaused (False, not True) and the two failures', () => {
  const m = fresh();
  markPause(m, 'Paused');
  assert.is(v2(m, 'Paused'), 'True/Paused/');
  assert.is(v1(m, 'AssociateBMH'), 'False/Metal3MachinePaused/Info/');
  markPause(m, 'NotPaused');
  assert.is(v2(m, 'Paused'), 'False/NotPaused/', 'E-4: upstream writes True here');
  markPause(m, { failed: 'set', message: 'conflict' });
  assert.is(v2(m, 'Paused'), 'False/BareMetalHostPauseAnnotationSetFailed/Failed to set pause annotation on associated BareMetalHost. Error: conflict');
  assert.is(v1(m, 'AssociateBMH'), 'False/PauseAnnotationSetFailedReason/Info/conflict');
  markPause(m, { failed: 'remove', message: 'gone' });
  assert.is(v2(m, 'Paused'), 'False/BareMetalHostPauseAnnotationRemoveFailed/Failed to remove pause annotation on associated BareMetalHost. Error: gone');
  assert.is(v1(m, 'AssociateBMH'), 'False/PauseAnnotationRemoveFailed/Info/gone');
});

test('M-42, E-5 changed: Ready summaries; KubernetesNodeReady True once the Node is found clears a past failure', () => {
  const m = fresh();
  markAssociated(m);
  markMetadataAssociated(m);
  markSecretsSetExternally(m);
  markNodeProblem(m, 'AssociateM3MetaDataFailed', 'transient');
  finishStatus(fresh(), m, new Date('2026-11-25T10:00:00.123Z'));
  assert.is(v1(m, 'Ready'), 'False/AssociateM3MetaDataFailed/Warning/transient');
  assert.is(v2(m, 'Ready').split('/').slice(0, 2).join('/'), 'False/NotReady');
  markMetadataAssociated(m);
  markNodeReady(m);
  finishStatus(fresh(), m, new Date('2026-11-25T10:00:00Z'));
  assert.is(v1(m, 'Ready'), 'True///');
  assert.is(v2(m, 'Ready'), 'True/Ready/');
  assert.is(m.status?.lastUpdated, '2026-11-25T10:00:00Z');
});

test('M-31: lastUpdated moves only when something else in the status changed', () => {
  const before = fresh();
  markAssociated(before);
  finishStatus(fresh(), before, new Date('2026-11-25T10:00:00Z'));
  const again = structuredClone(before) as Metal3Machine;
  markAssociated(again);
  finishStatus(before, again, new Date('2026-11-25T11:00:00Z'));
  assert.is(again.status?.lastUpdated, '2026-11-25T10:00:00Z');
});

test('an unusable workload cluster turned into a plain wait leaves no Warning behind; with no problem shown, a wait writes nothing', () => {
  const m = fresh();
  markNodeWaiting(m, 'waiting');
  assert.is(v1(m, 'KubernetesNodeReady'), '-');
  markNodeProblem(m, 'AssociateM3MetaDataFailed', 'get secrets refused: 403 Forbidden: …');
  markNodeWaiting(m, 'Workload cluster not usable yet: Secret not found');
  assert.is(v1(m, 'KubernetesNodeReady'), 'False/AssociateM3MetaDataFailed/Info/Workload cluster not usable yet: Secret not found');
  markNodeReady(m);
  markNodeWaiting(m, 'again');
  assert.is(v1(m, 'KubernetesNodeReady'), 'True///');
});

test.run();
