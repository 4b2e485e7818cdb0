// Ready summaries exactly as research 0.5 (v1beta1: worst in-scope group wins; v1beta2: missing
// counts as Unknown/NotYetReported; NotReady / ReadyUnknown / Ready).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Condition, MetaV1Condition } from '@metal3-ts/generated';
import { getCondition } from './get.ts';
import { setReadySummary, summarizeConditions } from './summary.ts';
import type { ConditionInput } from './types.ts';
import { getV1Beta2Condition } from './v1beta2/get.ts';
import { setV1Beta2ReadySummary, summarizeV1Beta2Conditions } from './v1beta2/summary.ts';

const test = suite('Ready summaries (research 0.5)');
const T = '2020-01-01T00:00:00Z';

// Metal3Machine v1beta1 in-scope conditions (research 0.3).
const M3M = ['AssociateBMH', 'Metal3DataReady', 'KubernetesNodeReady'];

const t = (type: string): Condition => ({ type, status: 'True', lastTransitionTime: T });
const f = (type: string, severity: string, reason: string, message?: string): Condition => ({
  type,
  status: 'False',
  severity,
  reason,
  ...(message ? { message } : {}),
  lastTransitionTime: T,
});
const u = (type: string, reason: string): Condition => ({ type, status: 'Unknown', reason, lastTransitionTime: T });

const v1beta1Table: [string, Condition[], ConditionInput | undefined][] = [
  ['0.5 none of the listed conditions exists: Ready untouched', [t('Other')], undefined],
  ['0.5 all existing in-scope True (missing ignored): Ready True without reason', [t('AssociateBMH'), t('Metal3DataReady')], { type: 'Ready', status: 'True' }],
  [
    '0.5 False/Error beats False/Warning and False/Info',
    [
      f('AssociateBMH', 'Info', 'WaitingForBootstrapReady'),
      f('Metal3DataReady', 'Error', 'DataFailed', 'boom'),
      f('KubernetesNodeReady', 'Warning', 'DeletionFailed'),
    ],
    { type: 'Ready', status: 'False', severity: 'Error', reason: 'DataFailed', message: 'boom' },
  ],
  [
    '0.5 False/Warning beats False/Info',
    [f('AssociateBMH', 'Info', 'WaitingForBootstrapReady'), f('KubernetesNodeReady', 'Warning', 'AssociateM3MetaDataFailed')],
    { type: 'Ready', status: 'False', severity: 'Warning', reason: 'AssociateM3MetaDataFailed' },
  ],
  [
    '0.5 False/Info beats Unknown',
    [u('AssociateBMH', 'Pending'), f('Metal3DataReady', 'Info', 'WaitingForMetal3Data')],
    { type: 'Ready', status: 'False', severity: 'Info', reason: 'WaitingForMetal3Data' },
  ],
  ['0.5 Unknown beats True', [t('AssociateBMH'), u('Metal3DataReady', 'Pending')], { type: 'Ready', status: 'Unknown', reason: 'Pending' }],
  [
    '0.5 within the worst group the first condition in listed order gives the reason',
    [f('KubernetesNodeReady', 'Info', 'Deleting'), f('AssociateBMH', 'Info', 'WaitingForM3MachineOwnerRef', 'no owner')],
    { type: 'Ready', status: 'False', severity: 'Info', reason: 'WaitingForM3MachineOwnerRef', message: 'no owner' },
  ],
  ['E-5 KubernetesNodeReady never set True is simply missing: Ready True', [t('AssociateBMH'), t('Metal3DataReady')], { type: 'Ready', status: 'True' }],
  ['a Ready condition among the inputs is not summarised into itself', [f('Ready', 'Error', 'Old'), t('AssociateBMH')], { type: 'Ready', status: 'True' }],
];

for (const [name, conditions, expected] of v1beta1Table) {
  test(`v1beta1: ${name}`, () => {
    assert.equal(summarizeConditions(conditions, M3M), expected);
  });
}

test('v1beta1: setReadySummary writes Ready, keeps it untouched when no input exists', () => {
  const obj = { status: { conditions: [f('Ready', 'Info', 'Previous'), t('Other')] } };
  setReadySummary(obj, M3M);
  assert.is(getCondition(obj, 'Ready')?.reason, 'Previous');
  obj.status.conditions.push(f('AssociateBMH', 'Error', 'AssociateBMHFailed'));
  setReadySummary(obj, M3M);
  assert.equal(
    { ...getCondition(obj, 'Ready'), lastTransitionTime: undefined },
    { type: 'Ready', status: 'False', severity: 'Error', reason: 'AssociateBMHFailed', lastTransitionTime: undefined },
  );
  assert.is(obj.status.conditions[0]?.type, 'Ready');
});

// Metal3Machine v1beta2 in-scope conditions (research 0.3).
const M3M_V1BETA2 = ['AssociateBareMetalHost', 'AssociateMetal3MachineMetaData', 'Metal3DataReady'];
const mc = (type: string, status: string, reason: string, message = ''): MetaV1Condition => ({ type, status, reason, message, lastTransitionTime: T });

const v1beta2Table: [string, MetaV1Condition[], { status: string; reason: string }][] = [
  ['0.5 missing inputs count as Unknown: Ready Unknown/ReadyUnknown', [], { status: 'Unknown', reason: 'ReadyUnknown' }],
  [
    '0.5 all True: Ready True/Ready',
    [
      mc('AssociateBareMetalHost', 'True', 'AssociateBareMetalHostSuccess'),
      mc('AssociateMetal3MachineMetaData', 'True', 'AssociateMetal3MachineMetaDataSuccess'),
      mc('Metal3DataReady', 'True', 'Metal3DataSecretsReady'),
    ],
    { status: 'True', reason: 'Ready' },
  ],
  [
    '0.5 any False (even with a missing input): Ready False/NotReady',
    [mc('AssociateBareMetalHost', 'False', 'WaitingForBootstrapData'), mc('Metal3DataReady', 'True', 'Metal3DataSecretsReady')],
    { status: 'False', reason: 'NotReady' },
  ],
  [
    '0.5 Unknown without False: Ready Unknown/ReadyUnknown',
    [
      mc('AssociateBareMetalHost', 'True', 'AssociateBareMetalHostSuccess'),
      mc('AssociateMetal3MachineMetaData', 'Unknown', 'Pending'),
      mc('Metal3DataReady', 'True', 'SecretsSetExternally'),
    ],
    { status: 'Unknown', reason: 'ReadyUnknown' },
  ],
];

for (const [name, conditions, expected] of v1beta2Table) {
  test(`v1beta2: ${name}`, () => {
    const ready = summarizeV1Beta2Conditions(conditions, M3M_V1BETA2);
    assert.equal({ status: ready.status, reason: ready.reason }, expected);
  });
}

test('v1beta2: the message lists non-True inputs, False first, missing ones as not yet reported', () => {
  const ready = summarizeV1Beta2Conditions(
    [mc('AssociateBareMetalHost', 'Unknown', 'Pending', 'host pending'), mc('Metal3DataReady', 'False', 'WaitingForMetal3Data')],
    M3M_V1BETA2,
  );
  assert.is(
    ready.message,
    ['* Metal3DataReady: WaitingForMetal3Data', '* AssociateBareMetalHost: host pending', '* AssociateMetal3MachineMetaData: Condition not yet reported'].join(
      '\n',
    ),
  );
  assert.is(summarizeV1Beta2Conditions([mc('AssociateBareMetalHost', 'True', 'X')], ['AssociateBareMetalHost']).message, '');
});

test('v1beta2: setV1Beta2ReadySummary writes Ready with the object generation (E-3: overwrites a transient reason)', () => {
  const obj = { metadata: { generation: 4 }, status: { v1beta2: { conditions: [mc('Ready', 'False', 'Deleting')] } } };
  setV1Beta2ReadySummary(obj, ['Metal3DataReady']);
  const ready = getV1Beta2Condition(obj, 'Ready');
  assert.is(ready?.reason, 'ReadyUnknown');
  assert.is(ready?.status, 'Unknown');
  assert.is(ready?.observedGeneration, 4);
});

test.run();
