import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiError } from '@metal3-ts/generated';
import type { Metal3DataClaim } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import { guard } from './guards.ts';
import { DATA_CLAIM_FINALIZER, METAL3_MACHINE_FINALIZER, REASONS, UPSTREAM_MESSAGES } from './names.ts';
import type { ClaimScope, Observations } from './scope.ts';
import { deriveStatus, problemOf } from './status.ts';
import { claim, cluster, data, template } from './testing.ts';

const test = suite("deriveStatus: the claim's renderedData and errorMessage from the scope (pure)");

const t = template('tmpl');
const forbidden = (step: string) =>
  new StepError(
    'Metal3DataClaim ns/c',
    step,
    apiError(403, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'no' }, {
      verb: 'PATCH',
      path: '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/ns/metal3datatemplates/tmpl/status',
    }),
  );
const REFUSED = 'patch metal3datatemplates/status.infrastructure.cluster.x-k8s.io refused: 403 Forbidden: no';

interface Case {
  readonly claim: Metal3DataClaim;
  readonly template?: boolean;
  readonly cluster?: 'paused' | false;
  readonly observed?: Partial<Observations>;
  /** Metal3Data naming the claim in the cache. */
  readonly datas?: number[];
}

function scope(c: Case): ClaimScope {
  const tmpl = c.template === false ? undefined : t;
  const cl = c.cluster === false ? undefined : cluster('cluster', c.cluster === 'paused');
  return {
    key: 'ns/c',
    object: 'Metal3DataClaim ns/c',
    claim: c.claim,
    template: tmpl,
    cluster: cl,
    datas: (c.datas ?? []).map((i) => data(t, c.claim, i)),
    decision: guard({ claim: c.claim, template: tmpl, cluster: cl }),
    observed: { claim: c.claim, released: false, errors: [], ...c.observed },
  };
}

const bound = { renderedData: { name: 'tmpl-0', namespace: 'ns' } };
const notFound = 'spec.template.name: Not found: Metal3DataTemplate "tmpl" does not exist in namespace "ns"';
const ours = [METAL3_MACHINE_FINALIZER, DATA_CLAIM_FINALIZER];

const cases: [string, Case, object][] = [
  ['§0.6 paused: the status is left as it is', { claim: claim('c', { errorMessage: 'old' }), cluster: 'paused' }, { errorMessage: 'old' }],
  ['deleting, our finalizer gone (Done): left as it is', { claim: claim('c', { deleting: true, renderedData: 'tmpl-0' }) }, bound],
  ['DT-5: waiting for the Cluster clears errorMessage, keeps renderedData', {
    claim: claim('c', { errorMessage: 'old', renderedData: 'tmpl-0' }),
    cluster: false,
  }, bound],
  ['DT-2 (changed): a missing template is errorMessage', { claim: claim('c'), template: false }, { errorMessage: notFound }],
  ['a claim that has its Metal3Data keeps it and its status when its template goes', {
    claim: claim('c', { renderedData: 'tmpl-0' }),
    template: false,
    datas: [0],
  }, bound],
  ['issue 21: a foreign renderedData is errorMessage even with a Metal3Data in the cache', {
    claim: { ...claim('c'), status: { renderedData: { name: 'tmpl-0', namespace: 'other' } } },
    datas: [0],
  }, {
    renderedData: { name: 'tmpl-0', namespace: 'other' },
    errorMessage:
      'status.renderedData.namespace: Invalid value: "other": must be empty or match the Metal3DataClaim namespace; cross-namespace references are not allowed',
  }],
  ['DT-14/DC-2: bound to the Metal3Data found or made, errorMessage cleared', {
    claim: claim('c', { errorMessage: 'old' }),
    observed: { data: data(t, claim('c'), 0) },
  }, bound],
  ["DT-11: no Metal3Machine owner is upstream's errorMessage", {
    claim: claim('c', { machine: null }),
    observed: { problem: { reason: REASONS.noMachineOwner, message: UPSTREAM_MESSAGES.noMachineOwner } },
  }, { errorMessage: UPSTREAM_MESSAGES.noMachineOwner }],
  ["DT-13: a failed create is upstream's errorMessage", {
    claim: claim('c'),
    observed: { problem: { reason: REASONS.dataWriteFailed, message: UPSTREAM_MESSAGES.createFailed }, errors: [new Error('boom')] },
  }, { errorMessage: UPSTREAM_MESSAGES.createFailed }],
  ['issue 21: a refused request is errorMessage naming verb and resource, over the problem and the binding', {
    claim: claim('c'),
    observed: {
      data: data(t, claim('c'), 0),
      problem: { reason: REASONS.dataWriteFailed, message: UPSTREAM_MESSAGES.createFailed },
      errors: [forbidden('template status')],
    },
  }, { ...bound, errorMessage: REFUSED }],
  ['a refused claim status write cannot record itself: errorMessage left alone', {
    claim: claim('c', { renderedData: 'tmpl-0' }),
    observed: { errors: [forbidden('claim status')] },
  }, bound],
  ['a transient failure leaves errorMessage alone', { claim: claim('c', { errorMessage: 'old' }), observed: { errors: [new Error('timeout')] } }, {
    errorMessage: 'old',
  }],
  ['DT-15: released while the Metal3Machine holds the claim: renderedData cleared', {
    claim: claim('c', { deleting: true, finalizers: ours, renderedData: 'tmpl-0' }),
    observed: { released: true },
  }, {}],
  ['DT-15: not released yet: renderedData kept', { claim: claim('c', { deleting: true, finalizers: ours, renderedData: 'tmpl-0' }) }, bound],
  ['DT-15: only our finalizer left (the claim goes with it): nothing to clear', {
    claim: claim('c', { deleting: true, finalizers: [DATA_CLAIM_FINALIZER], renderedData: 'tmpl-0' }),
    observed: { released: true },
  }, bound],
  ["DT-15: a failed Metal3Data delete is upstream's errorMessage on the claim being deleted", {
    claim: claim('c', { deleting: true, finalizers: ours, renderedData: 'tmpl-0' }),
    observed: { problem: { reason: REASONS.dataWriteFailed, message: UPSTREAM_MESSAGES.deleteFailed } },
  }, { ...bound, errorMessage: UPSTREAM_MESSAGES.deleteFailed }],
];

for (const [name, input, want] of cases) {
  test(name, () => {
    assert.equal(deriveStatus(scope(input)), want);
  });
}

test("problemOf: the guard's verdict on bad input (with its event reason), else the phases' problem", () => {
  assert.equal(problemOf(scope({ claim: claim('c'), template: false })), { reason: REASONS.templateNotFound, message: notFound });
  assert.is(
    problemOf(scope({ claim: claim('c', { renderedData: 'tmpl-0' }), template: false, datas: [0] })),
    undefined,
    'a claim keeping its data is told nothing',
  );
  const problem = { reason: REASONS.noMachineOwner, message: UPSTREAM_MESSAGES.noMachineOwner };
  assert.equal(problemOf(scope({ claim: claim('c', { machine: null }), observed: { problem } })), problem);
});

test.run();
