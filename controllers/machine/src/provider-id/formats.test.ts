// P-1, P-3, P-15, E-29: the providerID spellings, their inputs and the exact upstream error texts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  hostNameFromAnnotation,
  legacyProviderID,
  newProviderID,
  parseProviderID,
  PROVIDER_ID_PREFIX,
  providerIDCandidates,
  type ProviderIDCandidatesInput,
  ProviderIDError,
  type ProviderIDErrorKind,
} from './formats.ts';

const test = suite('providerID formats');

const UID = 'd668eb95-5df6-4c10-a01a-fc69f4299fc6';
const m3m = { name: 'test-controlplane-xyz', namespace: 'metal3', hostAnnotation: 'metal3/node-0' };
const input = (over: Partial<ProviderIDCandidatesInput> = {}): ProviderIDCandidatesInput => ({ metal3Machine: m3m, hostUid: UID, hostFound: true, ...over });
const annotated = (hostAnnotation: string | undefined, over: Partial<ProviderIDCandidatesInput> = {}): ProviderIDCandidatesInput =>
  input({ metal3Machine: { ...m3m, hostAnnotation }, ...over });

test('P-1: legacy is metal3://<uid>, new is metal3://<ns>/<bmh>/<m3m>', () => {
  assert.is(PROVIDER_ID_PREFIX, 'metal3://');
  assert.is(legacyProviderID(UID), `metal3://${UID}`);
  assert.is(newProviderID('metal3', 'node-0', 'test-controlplane-xyz'), 'metal3://metal3/node-0/test-controlplane-xyz');
});

test('P-3: both candidates from the annotation and the host UID', () => {
  assert.equal(providerIDCandidates(input()), { legacy: `metal3://${UID}`, new: 'metal3://metal3/node-0/test-controlplane-xyz' });
});

const failures: [title: string, given: ProviderIDCandidatesInput, kind: ProviderIDErrorKind, message: string][] = [
  ['P-3: no host annotation', annotated(undefined), 'HostName', 'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: '],
  ['P-3: empty host annotation', annotated(''), 'HostName', 'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: '],
  [
    'P-3: annotation without a namespace part',
    annotated('node-0'),
    'HostName',
    'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: node-0',
  ],
  [
    'P-3 / E-29: annotation naming another namespace',
    annotated('other/node-0'),
    'HostName',
    'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: other/node-0',
  ],
  [
    'P-3 (stricter than upstream): annotation with an empty host name',
    annotated('metal3/'),
    'HostName',
    'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: metal3/',
  ],
  [
    'P-3 (stricter than upstream): annotation with extra parts',
    annotated('metal3/node-0/x'),
    'HostName',
    'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: metal3/node-0/x',
  ],
  [
    'P-3: the annotation is checked before the host',
    annotated('other/node-0', { hostFound: false, hostUid: undefined }),
    'HostName',
    'unable to retrieve bmh name from metal3machine: test-controlplane-xyz , using annotation: other/node-0',
  ],
  ['P-3: host not found', input({ hostFound: false }), 'HostMissing', 'Failed to get a BaremetalHost for the metal3machine: test-controlplane-xyz'],
  ['P-3: host found without a UID', input({ hostUid: undefined }), 'HostUid', 'Missing BaremetalHost UID'],
  ['P-3: host found with an empty UID', input({ hostUid: '' }), 'HostUid', 'Missing BaremetalHost UID'],
];
for (const [title, given, kind, message] of failures) {
  test(title, () => {
    let thrown: unknown;
    try {
      providerIDCandidates(given);
    } catch (error) {
      thrown = error;
    }
    assert.instance(thrown, ProviderIDError);
    assert.instance(thrown, Error);
    const e = thrown as ProviderIDError;
    assert.is(e.name, 'ProviderIDError');
    assert.is(e.kind, kind);
    assert.is(e.message, message);
  });
}

test('P-10: the host name alone (for the default providerID) needs no host', () => {
  assert.is(hostNameFromAnnotation(m3m), 'node-0');
  assert.throws(() => hostNameFromAnnotation({ ...m3m, hostAnnotation: 'x/node-0' }), (e: unknown) => e instanceof ProviderIDError && e.kind === 'HostName');
});

const parsed: [title: string, providerID: string | undefined, expected: ReturnType<typeof parseProviderID>][] = [
  ['P-15: no providerID', undefined, { providerID: '' }],
  ['P-15: legacy spelling yields the host UID', 'metal3://4d25a2c2-46e4-11ec-81d3-0242ac130003', {
    providerID: 'metal3://4d25a2c2-46e4-11ec-81d3-0242ac130003',
    hostUid: '4d25a2c2-46e4-11ec-81d3-0242ac130003',
  }],
  ['P-15: new spelling carries no host UID', 'metal3://metal3/node-0/test-controlplane-xyz', { providerID: 'metal3://metal3/node-0/test-controlplane-xyz' }],
  ['P-15: without the scheme the whole value is the UID', '4d25a2c2', { providerID: '4d25a2c2', hostUid: '4d25a2c2' }],
  ['P-15: without the scheme a value with / is the new spelling', 'metal3/node-0/m', { providerID: 'metal3/node-0/m' }],
  ['P-15: an empty providerID gives an empty UID', '', { providerID: '', hostUid: '' }],
  ['P-15: the scheme alone gives an empty UID', 'metal3://', { providerID: 'metal3://', hostUid: '' }],
];
for (const [title, providerID, expected] of parsed) {
  test(title, () => assert.equal(parseProviderID(providerID), expected));
}

test.run();
