// D-8, D-9, D-10, D-7: the Metal3Data as deriveStatus leaves it, one table row per outcome and
// failure. The kind has no conditions in either dialect (v1beta1 `status.conditions`, v1beta2
// `status.v1beta2.conditions`): its status is `ready` and `errorMessage`, and the one spec field a
// reconcile learns is the Secret names (D-10). Every row also checks that nothing else moves.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ForbiddenError } from '@metal3-ts/generated/runtime/errors';
import type { Metal3Data, Metal3DataStatus } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { StepError } from '@metal3-ts/shared/controller/step-error';
import type { SecretTarget } from './decisions/secrets.ts';
import type { Observations } from './observations.ts';
import { type DataOutcome, deriveStatus, describeInvalid, failureMessage, waits } from './status.ts';
import { data, NS } from './testing.ts';

const test = suite('Metal3Data status');

const withStatus = (status: Metal3DataStatus | undefined) => data((x) => (status ? (x.status = status) : delete x.status));
const observed = (base: Metal3Data, extra: Partial<Observations> = {}): Observations => ({ data: base, errors: [], ...extra });

const invalid: DataOutcome = {
  kind: 'Invalid',
  cause: 'RenderingFailed',
  message: 'bad MAC address: XX',
  field: 'spec.networkData.links.ethernets[0].macAddress',
};
const conflict: DataOutcome = { kind: 'SecretConflict', message: 'Secret ns/s-metadata exists and is not controlled by this Metal3Data', secret: 's-metadata' };
const forbidden = new StepError(
  'Metal3Data ns/tmpl-0',
  'secret create',
  new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }, { verb: 'POST', path: `/api/v1/namespaces/${NS}/secrets` }),
);
const transient = new StepError('Metal3Data ns/tmpl-0', 'ip claims', new Error('connection reset'));

type Row = [title: string, before: Metal3DataStatus | undefined, outcome: DataOutcome | undefined, errors: unknown[], after: Metal3DataStatus | undefined];
const rows: Row[] = [
  ['D-9: ready clears an earlier error message', { errorMessage: 'old' }, { kind: 'Ready', created: [] }, [], { ready: true }],
  ['D-9: ready with Secrets written this pass', undefined, { kind: 'Ready', created: ['m3m-metadata'] }, [], { ready: true }],
  [
    'D-8: a wait clears the error message and leaves ready alone (never turned back)',
    { ready: true, errorMessage: 'old' },
    {
      kind: 'Waiting',
      reason: 'x',
    },
    [],
    { ready: true },
  ],
  ['D-8: a wait invents no empty status', undefined, { kind: 'Waiting', reason: 'x' }, [], undefined],
  ["D-9: a render failure names the template field before upstream's message", undefined, invalid, [], {
    errorMessage: 'spec.networkData.links.ethernets[0].macAddress: bad MAC address: XX',
  }],
  ['D-9: bad input leaves ready alone', { ready: true }, invalid, [], { ready: true, errorMessage: describeInvalid(invalid) }],
  ['issue 21: a Secret in the way is named in the error message; ready is left alone', { ready: true }, conflict, [], {
    ready: true,
    errorMessage: conflict.message,
  }],
  ['D-7: waiting for the claim on deletion leaves the status as it is', { errorMessage: 'kept' }, { kind: 'AwaitingClaimDeletion', claim: 'm3m' }, [], {
    errorMessage: 'kept',
  }],
  ['D-9 step 1: untouched means untouched', { errorMessage: 'kept' }, { kind: 'Untouched' }, [], { errorMessage: 'kept' }],
  ['D-7/D-20: a deletion that went through leaves the status as it is', { ready: true }, undefined, [], { ready: true }],
  ['a refused request is described by verb and resource', { ready: true }, undefined, [forbidden], {
    ready: true,
    errorMessage: 'create secrets refused: 403 Forbidden: no',
  }],
  ['any other failed request is recorded as upstream does: its message', undefined, undefined, [transient], {
    errorMessage: 'Metal3Data ns/tmpl-0: ip claims failed: connection reset',
  }],
  ['the first failure wins over a later one (the status patch)', undefined, undefined, [transient, forbidden], { errorMessage: transient.message }],
];

for (const [title, before, outcome, errors, after] of rows) {
  test(title, () => {
    const base = withStatus(before);
    const desired = deriveStatus(observed(base, { ...(outcome ? { outcome } : {}), errors }));
    assert.equal(desired.status, after);
    assert.equal(desired.spec, base.spec, 'the spec moves only with Secret targets');
    assert.equal(desired.metadata, base.metadata);
    assert.equal(base.status, before, 'pure: the observed object is not changed');
  });
}

test('D-10: the Secret names the reconcile derived are recorded in the spec; names already there are kept', () => {
  const targets: SecretTarget[] = [
    { kind: 'metaData', name: 'custom', key: 'metaData' },
    { kind: 'networkData', name: 'm3m-networkdata', key: 'networkData' },
  ];
  const base = data((x) => (x.spec!.metaData = { name: 'custom', namespace: NS }));
  const desired = deriveStatus(observed(base, { targets, outcome: { kind: 'Waiting', reason: 'x' } }));
  assert.equal(desired.spec?.metaData, { name: 'custom', namespace: NS });
  assert.equal(desired.spec?.networkData, { name: 'm3m-networkdata', namespace: NS });
  assert.is(base.spec?.networkData, undefined);
});

test('§0.4: waits are the outcomes that keep the safety-net requeue', () => {
  const waiting: (DataOutcome['kind'] | undefined)[] = [];
  const all: (DataOutcome | undefined)[] = [
    { kind: 'Ready', created: [] },
    { kind: 'Waiting', reason: 'x' },
    invalid,
    conflict,
    { kind: 'AwaitingClaimDeletion', claim: 'm3m' },
    { kind: 'Untouched' },
    undefined,
  ];
  for (const outcome of all) if (waits(outcome)) waiting.push(outcome?.kind);
  assert.equal(waiting, ['Waiting', 'SecretConflict', 'AwaitingClaimDeletion']);
  assert.is(failureMessage([]), undefined);
});

test.run();
