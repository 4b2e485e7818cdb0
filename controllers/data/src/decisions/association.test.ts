// D-9 steps 1–4, 8–9, M-9, M-40, E-29: which objects a Metal3Data is rendered for.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Data } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { withReferenceAt } from '@metal3-ts/shared/testing/references';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import type { Finding } from '../findings.ts';
import { claim, data, host, lookup, machine, metal3Machine, NS, template } from '../testing.ts';
import { type AssociationLookups, CROSS_NAMESPACE_MESSAGE, findAssociation, findMachineAndHost, hostKey, templateKey } from './association.ts';

const test = suite('Metal3Data association');

const all: AssociationLookups = { template: lookup(template()), claim: lookup(claim()), metal3Machine: lookup(metal3Machine()) };
const summary = (
  finding: Finding<unknown>,
): string => (finding.kind === 'Found' ? 'Found' : finding.kind === 'Wait' ? `Wait: ${finding.reason}` : `Invalid: ${finding.message}`);

const rows: [string, Metal3Data, Partial<AssociationLookups>, string][] = [
  ['D-9: template, claim and Metal3Machine that agree', data(), {}, 'Found'],
  ['D-9 step 3: template not found is a wait', data(), { template: lookup() }, 'Wait: Metal3DataTemplate is not found, requeuing'],
  [
    "D-9 step 3: a cluster label other than the template's clusterName",
    data((d) => (d.metadata.labels = { [CLUSTER_NAME_LABEL]: 'c2' })),
    {},
    'Invalid: Metal3DataTemplate associated with another cluster',
  ],
  ['D-9 step 4: empty claim name', data((d) => (d.spec!.claim = { name: '' })), {}, 'Invalid: Metal3DataClaim name not set'],
  ['D-9 step 4: claim not found is a wait', data(), { claim: lookup() }, 'Wait: Metal3DataClaim is not found, requeuing'],
  [
    'D-9 step 4: a claim without a Metal3Machine owner',
    data(),
    { claim: lookup(claim((c) => (c.metadata.ownerReferences = []))) },
    'Invalid: Metal3Machine not found in owner references',
  ],
  [
    'D-9 step 4: an owner of another group is not the Metal3Machine',
    data(),
    { claim: lookup(claim((c) => (c.metadata.ownerReferences = [{ apiVersion: 'example.com/v1', kind: 'Metal3Machine', name: 'm3m', uid: 'x' }]))) },
    'Invalid: Metal3Machine not found in owner references',
  ],
  ['D-9 step 4: Metal3Machine not found is a wait', data(), { metal3Machine: lookup() }, 'Wait: Metal3Machine is not found, requeuing'],
  [
    'D-9 step 4: a Metal3Machine without dataTemplate does not point back',
    data(),
    { metal3Machine: lookup(metal3Machine((m) => delete m.spec!.dataTemplate)) },
    'Invalid: Metal3Machine associated with Metal3DataTemplate is not found',
  ],
  [
    'D-9 step 4: a Metal3Machine naming another template',
    data(),
    { metal3Machine: lookup(metal3Machine((m) => (m.spec!.dataTemplate = { name: 'other' }))) },
    'Invalid: Metal3Machine associated with Metal3DataTemplate is not found',
  ],
  [
    'D-9 step 4: a Metal3Machine naming the template in another namespace',
    data(),
    { metal3Machine: lookup(metal3Machine((m) => (m.spec!.dataTemplate = { name: 'tmpl', namespace: 'elsewhere' }))) },
    'Invalid: Metal3Machine associated with Metal3DataTemplate is not found',
  ],
  [
    'D-9 step 4: the template namespace written out on the Metal3Machine is fine',
    data(),
    { metal3Machine: lookup(metal3Machine((m) => (m.spec!.dataTemplate = { name: 'tmpl', namespace: NS }))) },
    'Found',
  ],
];

for (const [title, d, overrides, expected] of rows) {
  test(title, () => {
    assert.is(summary(findAssociation(d, { ...all, ...overrides })), expected);
  });
}

const foreignRows: [string, Metal3Data, string][] = [
  ['template', data((d) => (d.spec!.template = { name: 'tmpl', namespace: 'tenant-b' })), 'spec.template.namespace'],
  ['claim', data((d) => (d.spec!.claim = { name: 'm3m', namespace: 'tenant-b' })), 'spec.claim.namespace'],
  ['metaData Secret', data((d) => (d.spec!.metaData = { name: 's', namespace: 'tenant-b' })), 'spec.metaData.namespace'],
  ['networkData Secret', data((d) => (d.spec!.networkData = { name: 's', namespace: 'tenant-b' })), 'spec.networkData.namespace'],
];
for (const [what, d, field] of foreignRows) {
  test(`issue 21: a ${what} reference into another namespace is invalid, naming ${field}, even when that object exists`, () => {
    // The lookups answer for any key: the foreign template would be "found" if it were ever looked up.
    const anywhere: AssociationLookups = { template: () => template(), claim: () => claim(), metal3Machine: () => metal3Machine() };
    const step = findAssociation(d, anywhere);
    assert.is(step.kind, 'Invalid');
    if (step.kind === 'Invalid') {
      assert.is(step.field, field);
      assert.is(step.message, CROSS_NAMESPACE_MESSAGE);
    }
  });
}

test('issue 21: every field of the shared Metal3Data table, naming another namespace, makes the association invalid with that field named', () => {
  const anywhere: AssociationLookups = { template: () => template(), claim: () => claim(), metal3Machine: () => metal3Machine() };
  for (const path of REFERENCE_FIELDS.Metal3Data) {
    const step = findAssociation(withReferenceAt(data(), path, 'tenant-b'), anywhere);
    assert.equal(step.kind === 'Invalid' ? [step.field, step.message] : step.kind, [`${path}.namespace`, CROSS_NAMESPACE_MESSAGE], path);
  }
});

test('issue 21: a foreign template has no key (the watches map nothing across namespaces)', () => {
  assert.is(templateKey(data((d) => (d.spec!.template = { name: 'tmpl', namespace: 'tenant-b' }))), undefined);
  assert.equal(templateKey(data((d) => (d.spec!.template = { name: 'tmpl', namespace: NS }))), { namespace: NS, name: 'tmpl' });
});

test("D-9 step 2: the template namespace defaults to the Metal3Data's", () => {
  assert.equal(templateKey(data((d) => (d.spec!.template = { name: 'tmpl' }))), { namespace: NS, name: 'tmpl' });
  assert.is(templateKey(data((d) => (d.spec!.template = { name: '' }))), undefined);
});

test('M-40 (changed), E-29: the host annotation names a host of the machine namespace only', () => {
  const m = (value: string | undefined) => metal3Machine((x) => (x.metadata.annotations = value === undefined ? {} : { [HOST_ANNOTATION]: value }));
  assert.equal(hostKey(m(`${NS}/host`)), { namespace: NS, name: 'host' });
  assert.equal(hostKey(m('host')), { namespace: NS, name: 'host' });
  assert.is(hostKey(m('elsewhere/host')), undefined);
  assert.is(hostKey(m('a/b/c')), undefined);
  assert.is(hostKey(m('')), undefined);
  assert.is(hostKey(m(undefined)), undefined);
});

test('M-40 (changed), issue 21: a host annotation naming another namespace (or malformed) is invalid, naming the annotation; the same-named host of our namespace is not used', () => {
  const lookups = { machine: lookup(machine()), host: lookup(host()) };
  const annotated = (value: string) => metal3Machine((x) => (x.metadata.annotations = { [HOST_ANNOTATION]: value }));
  const foreign = findMachineAndHost(annotated('elsewhere/host'), lookups);
  assert.is(foreign.kind, 'Invalid');
  assert.match(summary(foreign), /annotation metal3\.io\/BareMetalHost names BareMetalHost "elsewhere\/host" in another namespace/);
  assert.is(findMachineAndHost(annotated('a/b/c'), lookups).kind, 'Invalid');
});

test('D-9 step 8 / M-9: no owner Machine (or not yet cached) is a wait', () => {
  const lookups = { machine: lookup(machine()), host: lookup(host()) };
  assert.is(summary(findMachineAndHost(metal3Machine(), lookups)), 'Found');
  assert.is(
    summary(findMachineAndHost(metal3Machine((m) => (m.metadata.ownerReferences = [])), lookups)),
    'Wait: Waiting for Machine Controller to set OwnerRef on Metal3Machine',
  );
  assert.is(
    summary(findMachineAndHost(metal3Machine(), { ...lookups, machine: lookup() })),
    'Wait: Waiting for Machine Controller to set OwnerRef on Metal3Machine',
  );
});

test('D-9 step 9 / M-40: no host annotation, or no such host, is a wait', () => {
  const lookups = { machine: lookup(machine()), host: lookup(host()) };
  assert.is(summary(findMachineAndHost(metal3Machine((m) => (m.metadata.annotations = {})), lookups)), 'Wait: Waiting for BareMetalHost to become available');
  assert.is(summary(findMachineAndHost(metal3Machine(), { ...lookups, host: lookup() })), 'Wait: Waiting for BareMetalHost to become available');
});

test.run();
