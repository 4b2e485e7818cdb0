// §0.3, §0.5, C-7, C-8, C-10, C-11, C-13, C-14, C-17, E-3, E-14: the status deriveStatus makes of a
// reconcile's scope, one table per condition, each in both dialects where the condition has both.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, ForbiddenError, InvalidError } from '@metal3-ts/generated';
import { type Cluster, newCluster } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { type Metal3Cluster, newMetal3Cluster } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { getCondition } from '@metal3-ts/shared/conditions/get';
import { getV1Beta2Condition } from '@metal3-ts/shared/conditions/v1beta2/get';
import { RetryExhaustedError } from '@metal3-ts/shared/controller/retry-on-conflict';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import type { Guard } from './guards.ts';
import type { ClusterOutcome, ClusterStep, Observations } from './observations.ts';
import { deriveStatus, stampLastUpdated } from './status.ts';

const test = suite('Metal3Cluster deriveStatus');

const NOW = new Date('2025-01-02T03:04:05.678Z');
const running = newCluster({ metadata: { name: 'c1', namespace: 'ns' }, spec: {} });
const RECONCILE: Guard = { kind: 'Reconcile', cluster: running };
const fresh = (): Metal3Cluster =>
  newMetal3Cluster({ metadata: { name: 'm3c', namespace: 'ns', generation: 3 }, spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } } });

interface Pass {
  readonly m3c?: Metal3Cluster;
  readonly decision?: Guard;
  readonly cluster?: Cluster | undefined;
  readonly observed?: Observations;
  readonly now?: Date;
}
const derive = (pass: Pass = {}): Metal3Cluster =>
  deriveStatus({
    m3c: pass.m3c ?? fresh(),
    decision: pass.decision ?? RECONCILE,
    cluster: 'cluster' in pass ? pass.cluster : running,
    observed: pass.observed ?? {},
    now: pass.now ?? NOW,
  });

/** `status/reason/severity/message` of a v1beta1 condition, `-` when absent. */
function v1(m: Metal3Cluster, type: string): string {
  const c = getCondition(m, type);
  return c ? `${c.status}/${c.reason ?? ''}/${c.severity ?? ''}/${c.message ?? ''}` : '-';
}
/** `status/reason/message` of a v1beta2 condition, `-` when absent. */
function v2(m: Metal3Cluster, type: string): string {
  const c = getV1Beta2Condition(m, type);
  return c ? `${c.status}/${c.reason}/${c.message ?? ''}` : '-';
}

const CLUSTERS = '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/ns/metal3clusters/m3c';
const forbidden = new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }, { verb: 'PATCH', path: CLUSTERS });
const invalid = new InvalidError(422, { kind: 'Status', code: 422, reason: 'Invalid', message: 'bad' }, { verb: 'PATCH', path: CLUSTERS });
const conflict = new ConflictError(409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'stale' }, { verb: 'PATCH', path: CLUSTERS });
const step = (s: ClusterStep, cause: unknown) => new StepError('Metal3Cluster ns/m3c', s, cause);
const REFUSED = 'patch metal3clusters.infrastructure.cluster.x-k8s.io refused: 403 Forbidden: no';

const ENDPOINT = 'spec.controlPlaneEndpoint.port: Invalid value: -1';
const OWNER = 'Unable to get owner cluster: Cluster ns/c1 not found';
const WAIT = 'Waiting for 1 Machine (m) of Cluster c1 to be deleted';
/** The findings and failures every condition table goes through. */
const PASSES: Record<string, Pass> = {
  'C-14 ready': { observed: { outcome: { kind: 'Ready' } } },
  'C-13 invalid endpoint': { observed: { outcome: { kind: 'EndpointInvalid', message: ENDPOINT } } },
  'C-8 owner missing': {
    decision: { kind: 'OwnerClusterMissing', clusterName: 'c1' },
    cluster: undefined,
    observed: { outcome: { kind: 'OwnerClusterMissing', message: OWNER } },
  },
  'C-11 deleting': { decision: { kind: 'Delete', clusterName: 'c1' }, observed: { outcome: { kind: 'Deleting', message: WAIT } } },
  'C-9 no owner reference yet': { decision: { kind: 'WaitForOwnerRef' }, cluster: undefined, observed: { outcome: { kind: 'Unchanged' } } },
  'C-10 paused': {
    decision: { kind: 'Paused' },
    cluster: newCluster({ metadata: { name: 'c1' }, spec: { paused: true } }),
    observed: { outcome: { kind: 'Unchanged' } },
  },
  'refused finalizer write': { observed: { failure: step('finalizer', forbidden) } },
  'refused finalizer removal': { decision: { kind: 'Delete', clusterName: 'c1' }, observed: { failure: step('finalizer removal', forbidden) } },
  'spec defaults refused by the schema after retries': {
    observed: { failure: step('spec defaults', new RetryExhaustedError('Metal3Cluster ns/m3c: writing its spec defaults', 5, invalid)) },
  },
  'transient failure (conflict)': { observed: { outcome: { kind: 'Ready' }, failure: step('finalizer', conflict) } },
};

const INVALID_REFUSED = 'patch metal3clusters.infrastructure.cluster.x-k8s.io refused: 422 Invalid: bad';
function table(title: string, rows: Record<string, readonly [string, string]>, read: (m: Metal3Cluster) => readonly [string, string]): void {
  test(title, () => {
    assert.equal(Object.keys(rows).sort(), Object.keys(PASSES).sort(), 'a row for every pass');
    for (const [name, want] of Object.entries(rows)) assert.equal(read(derive(PASSES[name])), want, name);
  });
}

table('BaremetalInfrastructureReady (§0.3, C-8, C-13, C-14, E-3): every finding and failure in both dialects', {
  'C-14 ready': ['True///', 'True/Ready/'],
  'C-13 invalid endpoint': [`False/ControlPlaneEndpointFailed/Error/${ENDPOINT}`, `False/ControlPlaneEndpointFailed/${ENDPOINT}`],
  'C-8 owner missing': [`False/InternalFailureOccured/Error/${OWNER}`, '-'],
  'C-11 deleting': ['-', '-'],
  'C-9 no owner reference yet': ['-', '-'],
  'C-10 paused': ['-', '-'],
  'refused finalizer write': [`False/InternalFailureOccured/Error/${REFUSED}`, `False/InternalError/${REFUSED}`],
  'refused finalizer removal': [`False/InternalFailureOccured/Error/${REFUSED}`, `False/InternalError/${REFUSED}`],
  'spec defaults refused by the schema after retries': [`False/InternalFailureOccured/Error/${INVALID_REFUSED}`, `False/InternalError/${INVALID_REFUSED}`],
  'transient failure (conflict)': ['-', '-'],
}, (m) => [v1(m, 'BaremetalInfrastructureReady'), v2(m, 'BaremetalInfrastructureReady')]);

table('Ready (C-17, E-3): the v1beta1 summary; v1beta2 the summary, or FailedToGetOwnerCluster / Deleting said on Ready itself', {
  'C-14 ready': ['True///', 'True/Ready/'],
  'C-13 invalid endpoint': [`False/ControlPlaneEndpointFailed/Error/${ENDPOINT}`, 'False/NotReady/* BaremetalInfrastructureReady: ' + ENDPOINT],
  'C-8 owner missing': [`False/InternalFailureOccured/Error/${OWNER}`, `False/FailedToGetOwnerCluster/${OWNER}`],
  'C-11 deleting': ['-', `False/Deleting/${WAIT}`],
  'C-9 no owner reference yet': ['-', 'Unknown/ReadyUnknown/* BaremetalInfrastructureReady: Condition not yet reported'],
  'C-10 paused': ['-', 'Unknown/ReadyUnknown/* BaremetalInfrastructureReady: Condition not yet reported'],
  'refused finalizer write': [`False/InternalFailureOccured/Error/${REFUSED}`, `False/NotReady/* BaremetalInfrastructureReady: ${REFUSED}`],
  'refused finalizer removal': [`False/InternalFailureOccured/Error/${REFUSED}`, `False/NotReady/* BaremetalInfrastructureReady: ${REFUSED}`],
  'spec defaults refused by the schema after retries': [
    `False/InternalFailureOccured/Error/${INVALID_REFUSED}`,
    `False/NotReady/* BaremetalInfrastructureReady: ${INVALID_REFUSED}`,
  ],
  'transient failure (conflict)': ['-', '-'],
}, (m) => [v1(m, 'Ready'), v2(m, 'Ready')]);

table('Paused (C-10, v1beta2 only): on every pass but one whose failure leaves the status as it is', {
  'C-14 ready': ['-', 'False/NotPaused/'],
  'C-13 invalid endpoint': ['-', 'False/NotPaused/'],
  'C-8 owner missing': ['-', 'False/NotPaused/'],
  'C-11 deleting': ['-', 'False/NotPaused/'],
  'C-9 no owner reference yet': ['-', 'False/NotPaused/'],
  'C-10 paused': ['-', 'True/Paused/Cluster spec.paused is set to true'],
  'refused finalizer write': ['-', 'False/NotPaused/'],
  'refused finalizer removal': ['-', 'False/NotPaused/'],
  'spec defaults refused by the schema after retries': ['-', 'False/NotPaused/'],
  'transient failure (conflict)': ['-', '-'],
}, (m) => [v1(m, 'Paused'), v2(m, 'Paused')]);

table('status.ready (C-13, C-14): true when ready, false for an invalid endpoint, untouched otherwise; lastUpdated only when ready', {
  'C-14 ready': ['true', '2025-01-02T03:04:05Z'],
  'C-13 invalid endpoint': ['false', '-'],
  'C-8 owner missing': ['-', '-'],
  'C-11 deleting': ['-', '-'],
  'C-9 no owner reference yet': ['-', '-'],
  'C-10 paused': ['-', '-'],
  'refused finalizer write': ['-', '-'],
  'refused finalizer removal': ['-', '-'],
  'spec defaults refused by the schema after retries': ['-', '-'],
  'transient failure (conflict)': ['-', '-'],
}, (m) => [String(m.status?.ready ?? '-'), m.status?.lastUpdated ?? '-']);

test('every condition carries the generation it was computed from (C-17)', () => {
  const m = derive(PASSES['C-14 ready']);
  for (const type of ['BaremetalInfrastructureReady', 'Ready', 'Paused']) assert.is(getV1Beta2Condition(m, type)?.observedGeneration, 3, type);
});

test('a transient failure leaves the status exactly as it was (no write; the retry says what it finds)', () => {
  const m = derive(PASSES['C-14 ready']);
  const again = derive({ ...PASSES['transient failure (conflict)'], m3c: m });
  assert.equal(again, m);
});

test('C-7: failure domains copied from spec to status on a live, unpaused pass only; a copy, removed with the spec', () => {
  const m = fresh();
  m.spec!.failureDomains = { rack1: { controlPlane: true, attributes: { zone: 'a' } } };
  const rows: [string, Guard, boolean][] = [
    ['reconcile', RECONCILE, true],
    ['waiting for the owner reference', { kind: 'WaitForOwnerRef' }, true],
    ['owner missing', { kind: 'OwnerClusterMissing', clusterName: 'c1' }, true],
    ['paused', { kind: 'Paused' }, false],
    ['deleting', { kind: 'Delete', clusterName: 'c1' }, false],
  ];
  for (const [name, decision, copied] of rows) {
    const out = derive({ m3c: m, decision, observed: { outcome: { kind: 'Unchanged' } } });
    assert.equal(out.status?.failureDomains, copied ? m.spec!.failureDomains : undefined, name);
  }
  const out = derive({ m3c: m });
  m.spec!.failureDomains!['rack1']!.controlPlane = false;
  assert.is(out.status?.failureDomains?.['rack1']?.controlPlane, true, 'a copy, not shared');
  delete out.spec!.failureDomains;
  assert.is(derive({ m3c: out }).status?.failureDomains, undefined);
});

test('E-14 (fixed): an invalid endpoint turns a ready object not ready; ready again clears old failure fields', () => {
  const ready: ClusterOutcome = { kind: 'Ready' };
  const m = derive({ observed: { outcome: ready } });
  m.status!.failureReason = 'InvalidConfiguration';
  m.status!.failureMessage = 'Invalid Metal3Cluster provided';
  const bad = derive({ m3c: m, observed: { outcome: { kind: 'EndpointInvalid', message: 'spec.controlPlaneEndpoint.host: Required value' } } });
  assert.is(bad.status?.ready, false);
  assert.is(bad.status?.failureReason, 'InvalidConfiguration', 'this controller never sets them, nor clears them while not ready');
  const good = derive({ m3c: bad, observed: { outcome: ready } });
  assert.is(good.status?.ready, true);
  assert.is(good.status?.failureReason, undefined);
  assert.is(good.status?.failureMessage, undefined);
});

test('C-17: re-stating the same outcome changes nothing (no write, no new transition times, lastUpdated kept)', () => {
  const once = derive(PASSES['C-14 ready']);
  const twice = derive({ ...PASSES['C-14 ready'], m3c: once, now: new Date('2025-02-01T00:00:00Z') });
  assert.equal(twice, once);
});

test('lastUpdated moves only when the status says something new', () => {
  const m = fresh();
  const before = structuredClone(m.status);
  m.status = { ready: true };
  stampLastUpdated(before, m, new Date('2025-01-02T03:04:05.678Z'));
  assert.is(m.status?.lastUpdated, '2025-01-02T03:04:05Z');
  const again = structuredClone(m.status);
  stampLastUpdated(again, m, new Date('2025-02-01T00:00:00Z'));
  assert.is(m.status?.lastUpdated, '2025-01-02T03:04:05Z');
});

test('deriveStatus is pure: the working copy it is given is not changed', () => {
  const m = fresh();
  const copy = structuredClone(m);
  derive({ m3c: m, observed: { outcome: { kind: 'Ready' } } });
  assert.equal(m, copy);
});

test.run();
