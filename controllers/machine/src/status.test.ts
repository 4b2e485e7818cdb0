import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, ForbiddenError } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { markFalse } from '@metal3-ts/shared/conditions/set';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { ClusterNotReachableError, InvalidKubeconfigSecretError } from '@metal3-ts/shared/workload/errors';
import { HostTakenError, InvalidConfigurationError, NodeProviderIDError } from './errors.ts';
import type { MachineStep, Observations } from './observations.ts';
import { deriveStatus } from './status.ts';
import { BMC_SECRET_LABELLED_ANNOTATION } from './names.ts';

const test = suite('Metal3Machine deriveStatus');
const NOW = new Date('2026-11-25T10:00:00.123Z');
const fresh = (): Metal3Machine =>
  ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'm', namespace: 'ns' },
    spec: {},
    status: {},
  }) as Metal3Machine;
const derive = (observed: Observations, m3m = fresh()) => deriveStatus({ m3m, base: m3m, observed, now: NOW });
const v1 = (m: Metal3Machine, type: string) => {
  const c = getCondition(m, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}/${c.message ?? ''}` : '-';
};
const v2 = (m: Metal3Machine, type: string) => {
  const c = getV1Beta2Condition(m, type);
  return c ? `${c.status}/${c.reason}/${c.message ?? ''}` : '-';
};
const forbidden = new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'nodes "n1" is forbidden' }, {
  verb: 'PATCH',
  path: '/api/v1/nodes/n1',
});
const step = (s: MachineStep, cause: unknown) => new StepError('Metal3Machine ns/m', s, cause);

test('AssociateBMH / AssociateBareMetalHost (§0.3, M-9, M-12, M-13, M-20, M-21, M-27, H-10, H-11): every association finding in both dialects', () => {
  const rows: [Observations['association'], string, string][] = [
    [
      { kind: 'OwnerRef' },
      'False/WaitingForM3MachineOwnerRef/Info/',
      'False/WaitingForMetal3MachineOwnerRef/Waiting for Machine Controller to set OwnerRef on Metal3Machine',
    ],
    [
      { kind: 'Machine', message: 'Waiting for the owner Machine m' },
      'False/WaitingForM3MachineOwnerRef/Info/Waiting for the owner Machine m',
      'False/WaitingForMetal3MachineOwnerRef/Waiting for the owner Machine m',
    ],
    [
      { kind: 'Cluster', message: 'Cluster c not found' },
      'False/WaitingForClusterInfrastructure/Info/Cluster c not found',
      'False/WaitingForClusterInfrastructureReady/Cluster c not found',
    ],
    [
      { kind: 'Infrastructure' },
      'False/WaitingForClusterInfrastructure/Info/Waiting for Metal3Cluster Controller to create cluster infrastructure',
      'False/WaitingForClusterInfrastructureReady/Waiting for Metal3Cluster Controller to create cluster infrastructure',
    ],
    [
      { kind: 'Metal3Cluster' },
      'False/WaitingforMetal3Cluster/Info/Waiting for Metal3Cluster Controller to create the Metal3Cluster',
      'False/WaitingforMetal3Cluster/Waiting for Metal3Cluster Controller to create the Metal3Cluster',
    ],
    [
      { kind: 'Bootstrap' },
      'False/WaitingForBootstrapReady/Info/Waiting for bootstrap data to be ready before proceeding',
      'False/WaitingForBootstrapData/Waiting for bootstrap data to be ready before proceeding',
    ],
    [
      { kind: 'Host', message: 'No available host found: x' },
      'False/AssociateBMHFailed/Info/No available host found: x',
      'False/AssociateBareMetalHostFailed/No available host found: x',
    ],
    [{ kind: 'Failed', message: 'boom' }, 'False/AssociateBMHFailed/Error/boom', 'False/AssociateBareMetalHostFailed/boom'],
    [{ kind: 'Associated' }, 'True///', 'True/AssociateBareMetalHostSuccess/'],
  ];
  for (const [association, one, two] of rows) {
    const m = derive({ association });
    assert.is(v1(m, 'AssociateBMH'), one, association?.kind);
    assert.is(v2(m, 'AssociateBareMetalHost'), two, association?.kind);
  }
});

test('M-9 (issue 20): an owner Machine missing from the cache while the owner-reference wait is shown leaves it as it is (no status write)', () => {
  const waiting = derive({ association: { kind: 'OwnerRef' } });
  const later = derive({ association: { kind: 'Machine', message: 'Waiting for the owner Machine m' } }, structuredClone(waiting));
  assert.is(v1(later, 'AssociateBMH'), 'False/WaitingForM3MachineOwnerRef/Info/');
  assert.is(v2(later, 'AssociateBareMetalHost'), 'False/WaitingForMetal3MachineOwnerRef/Waiting for Machine Controller to set OwnerRef on Metal3Machine');
  assert.equal(later.status, waiting.status);
});

test('Paused (M-14…M-16, E-4 changed): Paused, NotPaused (False, not True) and the two failures; an association finding of the same pass replaces the v1beta1 pause reason', () => {
  const rows: [Observations['pause'], string, string][] = [
    ['Paused', 'True/Paused/', 'False/Metal3MachinePaused/Info/'],
    ['NotPaused', 'False/NotPaused/', '-'],
    [
      { failed: 'set', message: 'conflict' },
      'False/BareMetalHostPauseAnnotationSetFailed/Failed to set pause annotation on associated BareMetalHost. Error: conflict',
      'False/PauseAnnotationSetFailedReason/Info/conflict',
    ],
    [
      { failed: 'remove', message: 'gone' },
      'False/BareMetalHostPauseAnnotationRemoveFailed/Failed to remove pause annotation on associated BareMetalHost. Error: gone',
      'False/PauseAnnotationRemoveFailed/Info/gone',
    ],
  ];
  for (const [pause, two, one] of rows) {
    const m = derive({ pause });
    assert.is(v2(m, 'Paused'), two, JSON.stringify(pause));
    assert.is(v1(m, 'AssociateBMH'), one, JSON.stringify(pause));
  }
  assert.is(v1(derive({ pause: 'Paused', association: { kind: 'Associated' } }), 'AssociateBMH'), 'True///');
});

test('AssociateMetal3MachineMetaData (v1beta2) and KubernetesNodeReady (v1beta1) (M-28, X-1…X-3, E-5 changed): every Node finding', () => {
  const rows: [Observations['node'], string, string][] = [
    [
      { kind: 'Problem', step: 'AssociateM3MetaDataFailed', message: 'x' },
      'False/AssociateM3MetaDataFailed/Warning/x',
      'False/AssociateMetal3MachineMetaDataFailed/x',
    ],
    [{ kind: 'Problem', step: 'Deleting', message: '' }, 'False/Deleting/Info/', 'False/Deleting/'],
    [
      { kind: 'Problem', step: 'DisassociateM3MetaDataFailed', message: 'x' },
      'False/DisassociateM3MetaDataFailed/Warning/x',
      'False/DisassociateM3MetaDataFailed/x',
    ],
    [{ kind: 'Problem', step: 'DeletionFailed', message: 'x' }, 'False/DeletionFailed/Warning/x', 'False/DeletionFailed/x'],
    [{ kind: 'Ready' }, 'True///', 'True/AssociateMetal3MachineMetaDataSuccess/'],
    [{ kind: 'Waiting', message: 'w' }, '-', 'True/AssociateMetal3MachineMetaDataSuccess/'],
  ];
  for (const [node, one, two] of rows) {
    const m = derive({ metadataAssociated: true, node });
    assert.is(v1(m, 'KubernetesNodeReady'), one, JSON.stringify(node));
    assert.is(v2(m, 'AssociateMetal3MachineMetaData'), two, JSON.stringify(node));
  }
});

test('KubernetesNodeReady: an unusable workload cluster turned into a plain wait leaves no Warning behind; with no problem shown, a wait writes nothing', () => {
  const shown = fresh();
  markFalse(shown, 'KubernetesNodeReady', 'AssociateM3MetaDataFailed', 'Warning', 'get secrets refused: 403 Forbidden: …');
  assert.is(
    v1(derive({ node: { kind: 'Waiting', message: 'Workload cluster not usable yet: Secret not found' } }, shown), 'KubernetesNodeReady'),
    'False/AssociateM3MetaDataFailed/Info/Workload cluster not usable yet: Secret not found',
  );
  assert.is(v1(derive({ node: { kind: 'Waiting', message: 'w' } }), 'KubernetesNodeReady'), '-');
});

test('Metal3DataReady (M-36, M-19, P-9): waiting, ready, and set externally only when not already True', () => {
  const rows: [Observations['data'], string, string][] = [
    [
      { kind: 'Waiting', message: 'Waiting for Metal3Data to become ready' },
      'False/WaitingForMetal3Data/Info/Waiting for Metal3Data to become ready',
      'False/WaitingForMetal3Data/Waiting for Metal3Data to become ready',
    ],
    [{ kind: 'Ready' }, 'True///', 'True/Metal3DataSecretsReady/'],
    [{ kind: 'External' }, 'True///', 'True/SecretsSetExternally/'],
  ];
  for (const [data, one, two] of rows) {
    const m = derive({ data });
    assert.is(v1(m, 'Metal3DataReady'), one, data?.kind);
    assert.is(v2(m, 'Metal3DataReady'), two, data?.kind);
  }
  const rendered = fresh();
  setV1Beta2Condition(rendered, { type: 'Metal3DataReady', status: 'True', reason: 'Metal3DataSecretsReady' });
  assert.is(v2(derive({ data: { kind: 'External' } }, rendered), 'Metal3DataReady'), 'True/Metal3DataSecretsReady/', 'a rendered Metal3Data stays the reason');
});

test('Ready summaries (M-42, E-5 changed) in both dialects; status.ready, addresses and spec.providerID from the findings; lastUpdated only on change', () => {
  const failing = derive({
    association: { kind: 'Associated' },
    metadataAssociated: true,
    data: { kind: 'External' },
    node: { kind: 'Problem', step: 'AssociateM3MetaDataFailed', message: 'transient' },
  });
  assert.is(v1(failing, 'Ready'), 'False/AssociateM3MetaDataFailed/Warning/transient');
  assert.is(v2(failing, 'Ready').split('/').slice(0, 2).join('/'), 'False/NotReady');
  const addresses = [{ type: 'InternalIP' as const, address: '192.168.111.20' }];
  const ready = derive({
    association: { kind: 'Associated' },
    metadataAssociated: true,
    data: { kind: 'External' },
    node: { kind: 'Ready' },
    ready: true,
    providerID: 'metal3://ns/h/m',
    addresses,
  }, failing);
  assert.is(v1(ready, 'Ready'), 'True///');
  assert.is(v2(ready, 'Ready'), 'True/Ready/');
  assert.is(ready.status?.ready, true);
  assert.is(ready.spec?.providerID, 'metal3://ns/h/m');
  assert.equal(ready.status?.addresses, addresses);
  assert.is(ready.status?.lastUpdated, '2026-11-25T10:00:00Z');
  const again = deriveStatus({ m3m: ready, base: ready, observed: { association: { kind: 'Associated' } }, now: new Date('2026-11-25T11:00:00Z') });
  assert.is(again.status?.lastUpdated, '2026-11-25T10:00:00Z', 'M-31: nothing else changed');
});

test('a failure shows on the condition of its step (M-21, M-28, X-2, X-3); a refusal anywhere else on AssociateBMH; invalid configuration sets the failure fields (seed 002)', () => {
  const rows: [unknown, string, string, string][] = [
    [step('associate', new Error('no way')), 'AssociateBMH', 'False/AssociateBMHFailed/Error/no way', ''],
    [step('spec', new InvalidConfigurationError('foreign')), 'AssociateBMH', 'False/AssociateBMHFailed/Error/foreign', 'InvalidConfiguration/foreign'],
    [step('host', new HostTakenError('taken')), 'AssociateBMH', 'False/AssociateBMHFailed/Error/taken', ''],
    [step('host', new ConflictError(409, undefined, { verb: 'PATCH', path: '/x' })), 'AssociateBMH', '-', ''],
    [
      step('metadata', new InvalidConfigurationError('spec.dataTemplate.name must be set')),
      'KubernetesNodeReady',
      'False/AssociateM3MetaDataFailed/Warning/spec.dataTemplate.name must be set',
      'InvalidConfiguration/spec.dataTemplate.name must be set',
    ],
    [step('dissociate', new Error('d')), 'KubernetesNodeReady', 'False/DisassociateM3MetaDataFailed/Warning/d', ''],
    [step('release', new Error('r')), 'KubernetesNodeReady', 'False/DeletionFailed/Warning/r', ''],
    [step('finalizer', forbidden), 'AssociateBMH', 'False/AssociateBMHFailed/Error/patch nodes refused: 403 Forbidden: nodes "n1" is forbidden', ''],
    [step('strays', new Error('transient')), 'AssociateBMH', '-', ''],
    [
      step('node', new InvalidKubeconfigSecretError({ namespace: 'ns', name: 'c' }, 'junk')),
      'KubernetesNodeReady',
      'False/AssociateM3MetaDataFailed/Warning/',
      '',
    ],
  ];
  for (const [failure, type, shown, fields] of rows) {
    const m = derive({ failure });
    const got = v1(m, type);
    assert.ok(shown.endsWith('/') ? got.startsWith(shown) : got === shown, `${(failure as StepError).step}: ${got}`);
    assert.is(m.status?.failureReason ? `${m.status.failureReason}/${m.status.failureMessage}` : '', fields, (failure as StepError).step);
  }
});

test('the Node step: a Forbidden Node patch shows on KubernetesNodeReady (Warning) naming the Node and the verb; a workload cluster not reachable is a wait (Info)', () => {
  const refused = derive({ failure: step('node', new NodeProviderIDError('n1', 'ns/c', forbidden)) });
  assert.is(
    v1(refused, 'KubernetesNodeReady'),
    'False/AssociateM3MetaDataFailed/Warning/Node n1 of workload cluster ns/c: setting spec.providerID failed: patch nodes refused: 403 Forbidden: nodes "n1" is forbidden',
  );
  assert.is(v2(refused, 'AssociateMetal3MachineMetaData').split('/')[1], 'AssociateMetal3MachineMetaDataFailed');
  const shown = fresh();
  markFalse(shown, 'KubernetesNodeReady', 'AssociateM3MetaDataFailed', 'Warning', 'old');
  const waiting = derive({ failure: step('node', new ClusterNotReachableError({ namespace: 'ns', name: 'c' }, new Error('ECONNREFUSED'))) }, shown);
  assert.is(
    v1(waiting, 'KubernetesNodeReady'),
    'False/AssociateM3MetaDataFailed/Info/Workload cluster not usable yet: workload cluster ns/c is not reachable: ECONNREFUSED',
  );
});

test('the data references (M-23, M-35, M-36, X-2): as the phases left them, a missing one removed; untouched without a finding', () => {
  const m3m = fresh();
  m3m.status = { userData: { name: 'u', namespace: 'ns' }, renderedData: { name: 'd', namespace: 'ns' }, metaData: { name: 'old', namespace: 'ns' } };
  const out = derive({ references: { userData: { name: 'u', namespace: 'ns' }, metaData: { name: 'md', namespace: 'ns' } } }, m3m);
  assert.equal(out.status?.metaData, { name: 'md', namespace: 'ns' });
  assert.equal(out.status?.userData, { name: 'u', namespace: 'ns' });
  assert.is(out.status?.renderedData, undefined, 'X-2: dropped on deletion');
  assert.is(out.status?.networkData, undefined);
  assert.equal(derive({}, m3m).status?.renderedData, { name: 'd', namespace: 'ns' });
});

test('M-26 (issue 20): the BMC Secret mark goes on with the provider ID (the write that carries it), never before', () => {
  const mark = (m: Metal3Machine) => m.metadata.annotations?.[BMC_SECRET_LABELLED_ANNOTATION];
  assert.is(mark(derive({ secretLabelled: 'ns/h/h-bmc' })), undefined, 'no provider ID yet: remembered, not written');
  assert.is(mark(derive({ secretLabelled: 'ns/h/h-bmc', providerID: 'metal3://ns/h/m' })), 'ns/h/h-bmc', 'rides with the provider ID');
  const upgraded = fresh();
  upgraded.spec = { providerID: 'metal3://ns/h/m' };
  assert.is(mark(derive({ secretLabelled: 'ns/h/h-bmc' }, upgraded)), 'ns/h/h-bmc', 'a machine that had its provider ID already: written now');
  assert.is(mark(derive({ providerID: 'metal3://ns/h/m' })), undefined, 'nothing labelled, nothing marked');
});

test.run();
