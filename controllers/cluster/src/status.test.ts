// §0.3, §0.5, C-7, C-8, C-10, C-11, C-13, C-14, C-17, E-3, E-14: the status one decision produces.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Cluster, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { setV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/set';
import { deletionWait } from './decisions/delete.ts';
import { copyFailureDomains } from './decisions/failure-domains.ts';
import { pausedCondition } from './decisions/paused.ts';
import { type ClusterOutcome, deriveStatus, stampLastUpdated } from './status.ts';

const test = suite('Metal3Cluster status decisions');

const fresh = (): Metal3Cluster =>
  newMetal3Cluster({ metadata: { name: 'm3c', namespace: 'ns', generation: 3 }, spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } } });

/** `type=status/reason/severity` for v1beta1, `type=status/reason` for v1beta2. */
function v1(m: Metal3Cluster, type: string): string | undefined {
  const c = getCondition(m, type);
  return c && `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}`;
}
function v2(m: Metal3Cluster, type: string): string | undefined {
  const c = getV1Beta2Condition(m, type);
  return c && `${c.status}/${c.reason}`;
}

interface Want {
  ready: boolean | undefined;
  bir1: string | undefined;
  ready1: string | undefined;
  bir2: string | undefined;
  ready2: string;
}

const rows: [string, ClusterOutcome, Want][] = [
  ['C-14: ready', { kind: 'Ready' }, { ready: true, bir1: 'True//', ready1: 'True//', bir2: 'True/Ready', ready2: 'True/Ready' }],
  [
    'C-13 (changed): invalid endpoint: ControlPlaneEndpointFailed in both dialects, ready false',
    { kind: 'EndpointInvalid', message: 'spec.controlPlaneEndpoint.port: Invalid value: -1' },
    {
      ready: false,
      bir1: 'False/ControlPlaneEndpointFailed/Error',
      ready1: 'False/ControlPlaneEndpointFailed/Error',
      bir2: 'False/ControlPlaneEndpointFailed',
      ready2: 'False/NotReady',
    },
  ],
  [
    'C-8 + E-3 (fixed): owner missing: InternalFailureOccured, v1beta2 Ready keeps FailedToGetOwnerCluster',
    { kind: 'OwnerClusterMissing', message: 'Unable to get owner cluster: Cluster ns/c1 not found' },
    {
      ready: undefined,
      bir1: 'False/InternalFailureOccured/Error',
      ready1: 'False/InternalFailureOccured/Error',
      bir2: undefined,
      ready2: 'False/FailedToGetOwnerCluster',
    },
  ],
  [
    'a refused write: InternalFailureOccured (v1beta1) and InternalError (v1beta2) naming verb and resource',
    { kind: 'RequestRefused', message: 'patch metal3clusters.infrastructure.cluster.x-k8s.io refused: 403 Forbidden: no' },
    {
      ready: undefined,
      bir1: 'False/InternalFailureOccured/Error',
      ready1: 'False/InternalFailureOccured/Error',
      bir2: 'False/InternalError',
      ready2: 'False/NotReady',
    },
  ],
  [
    'C-11 + E-3 (fixed): deleting keeps v1beta2 Ready Deleting',
    { kind: 'Deleting', message: 'Waiting for 1 Machine (m) of Cluster c1 to be deleted' },
    { ready: undefined, bir1: undefined, ready1: undefined, bir2: undefined, ready2: 'False/Deleting' },
  ],
  [
    'C-9/C-17: nothing reported yet: v1beta1 Ready untouched, v1beta2 Ready Unknown',
    { kind: 'Unchanged' },
    { ready: undefined, bir1: undefined, ready1: undefined, bir2: undefined, ready2: 'Unknown/ReadyUnknown' },
  ],
];

for (const [name, outcome, want] of rows) {
  test(name, () => {
    const m = fresh();
    deriveStatus(m, outcome);
    assert.is(m.status?.ready, want.ready);
    assert.is(v1(m, 'BaremetalInfrastructureReady'), want.bir1);
    assert.is(v1(m, 'Ready'), want.ready1);
    assert.is(v2(m, 'BaremetalInfrastructureReady'), want.bir2);
    assert.is(v2(m, 'Ready'), want.ready2);
    if ('message' in outcome) {
      const messages = [getCondition(m, 'BaremetalInfrastructureReady')?.message, getV1Beta2Condition(m, 'Ready')?.message];
      assert.ok(messages.includes(outcome.message), 'the message reaches a condition');
    }
    assert.is(getV1Beta2Condition(m, 'Ready')?.observedGeneration, 3);
  });
}

test('E-14 (fixed): an invalid endpoint turns a ready object not ready; ready again clears old failure fields', () => {
  const m = fresh();
  deriveStatus(m, { kind: 'Ready' });
  m.status!.failureReason = 'InvalidConfiguration';
  m.status!.failureMessage = 'Invalid Metal3Cluster provided';
  deriveStatus(m, { kind: 'EndpointInvalid', message: 'spec.controlPlaneEndpoint.host: Required value' });
  assert.is(m.status?.ready, false);
  assert.is(m.status?.failureReason, 'InvalidConfiguration', 'this controller never sets them, nor clears them while not ready');
  deriveStatus(m, { kind: 'Ready' });
  assert.is(m.status?.ready, true);
  assert.is(m.status?.failureReason, undefined);
  assert.is(m.status?.failureMessage, undefined);
  assert.is(v1(m, 'Ready'), 'True//');
});

test('C-17: re-stating the same outcome changes nothing (no write, no new transition times)', () => {
  const m = fresh();
  deriveStatus(m, { kind: 'Ready' });
  const once = structuredClone(m);
  deriveStatus(m, { kind: 'Ready' });
  assert.equal(m, once);
});

test('lastUpdated moves only when the status says something new', () => {
  const m = fresh();
  const before = structuredClone(m.status);
  deriveStatus(m, { kind: 'Ready' });
  stampLastUpdated(before, m, new Date('2025-01-02T03:04:05.678Z'));
  assert.is(m.status?.lastUpdated, '2025-01-02T03:04:05Z');
  const again = structuredClone(m.status);
  deriveStatus(m, { kind: 'Ready' });
  stampLastUpdated(again, m, new Date('2025-02-01T00:00:00Z'));
  assert.is(m.status?.lastUpdated, '2025-01-02T03:04:05Z');
});

test('C-7, C-10: deriveStatus sets the Paused condition and copies failure domains only when given; lastUpdated only when Ready', () => {
  const now = new Date('2025-01-02T03:04:05Z');
  const m = fresh();
  m.spec!.failureDomains = { rack1: { controlPlane: true } };
  deriveStatus(m, { kind: 'Deleting', message: 'Waiting' }, { stamp: { before: undefined, now } });
  assert.is(v2(m, 'Paused'), undefined);
  assert.is(m.status?.failureDomains, undefined);
  assert.is(m.status?.lastUpdated, undefined, 'not Ready: no stamp');
  deriveStatus(m, { kind: 'Ready' }, { paused: pausedCondition(undefined, m), failureDomains: true, stamp: { before: undefined, now } });
  assert.is(v2(m, 'Paused'), 'False/NotPaused');
  assert.equal(m.status?.failureDomains, { rack1: { controlPlane: true } });
  assert.is(m.status?.lastUpdated, '2025-01-02T03:04:05Z');
});

test('C-10: Paused condition from Cluster spec.paused and the annotation, with upstream messages', () => {
  const m = fresh();
  const running = newCluster({ metadata: { name: 'c1' }, spec: {} });
  const paused = newCluster({ metadata: { name: 'c1' }, spec: { paused: true } });
  assert.equal(pausedCondition(running, m), { type: 'Paused', status: 'False', reason: 'NotPaused', message: '', observedGeneration: 3 });
  assert.equal(pausedCondition(paused, m), {
    type: 'Paused',
    status: 'True',
    reason: 'Paused',
    message: 'Cluster spec.paused is set to true',
    observedGeneration: 3,
  });
  m.metadata.annotations = { 'cluster.x-k8s.io/paused': 'true' };
  assert.is(pausedCondition(undefined, m).message, 'Metal3Cluster has the cluster.x-k8s.io/paused annotation');
  assert.is(pausedCondition(paused, m).message, 'Cluster spec.paused is set to true, Metal3Cluster has the cluster.x-k8s.io/paused annotation');
  setV1Beta2Condition(m, pausedCondition(paused, m));
  assert.is(v2(m, 'Paused'), 'True/Paused');
});

test('C-7: failure domains copied from spec to status, removed with the spec', () => {
  const m = fresh();
  m.spec!.failureDomains = { rack1: { controlPlane: true, attributes: { zone: 'a' } } };
  copyFailureDomains(m);
  assert.equal(m.status?.failureDomains, { rack1: { controlPlane: true, attributes: { zone: 'a' } } });
  m.spec!.failureDomains!['rack1']!.controlPlane = false;
  assert.is(m.status?.failureDomains?.['rack1']?.controlPlane, true, 'a copy, not shared');
  copyFailureDomains(m);
  assert.is(m.status?.failureDomains?.['rack1']?.controlPlane, false);
  delete m.spec!.failureDomains;
  copyFailureDomains(m);
  assert.is(m.status?.failureDomains, undefined);
});

test('C-11 (changed): deletion waits for Machines and Metal3Machines of the cluster, names them', () => {
  const obj = (name: string) => ({ apiVersion: 'v1', kind: 'X', metadata: { name } });
  assert.is(deletionWait('c1', { machines: [], metal3Machines: [] }), undefined);
  assert.is(deletionWait('c1', { machines: [obj('m1')], metal3Machines: [] }), 'Waiting for 1 Machine (m1) of Cluster c1 to be deleted');
  assert.is(
    deletionWait('c1', { machines: [obj('m2'), obj('m1')], metal3Machines: [obj('x')] }),
    'Waiting for 2 Machines (m1, m2) and 1 Metal3Machine (x) of Cluster c1 to be deleted',
  );
  const many = Array.from({ length: 7 }, (_, i) => obj(`n${i}`));
  assert.match(deletionWait('c1', { machines: [], metal3Machines: many }) ?? '', /^Waiting for 7 Metal3Machines \(n0, n1, n2, n3, n4, \.\.\.\)/);
});

test.run();
