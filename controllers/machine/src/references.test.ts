// Issue 21: which references of a Metal3Machine name another namespace.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import { REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { withReferenceAt } from '@metal3-ts/shared/testing/references';
import { foreignReferencesMessage } from './references.ts';

const m3m = (spec: Metal3Machine['spec'], status: Metal3Machine['status'] = {}): Metal3Machine =>
  ({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'Metal3Machine',
    metadata: { name: 'm', namespace: 'tenant-a' },
    spec,
    status,
  }) as Metal3Machine;
const other = { name: 'x', namespace: 'tenant-b' };

test('issue 21, M-23, M-35: every Metal3Machine reference into another namespace is named (user data, metadata, network data Secrets, data template, status copies)', () => {
  const rows: [string, Metal3Machine, string[]][] = [
    ['no references', m3m({}), []],
    [
      'empty or own namespaces',
      m3m({ userData: { name: 'u' }, metaData: { name: 'm', namespace: '' }, dataTemplate: { name: 't', namespace: 'tenant-a' } }),
      [],
    ],
    ['spec.userData', m3m({ userData: other }), ['spec.userData.namespace']],
    ['spec.metaData', m3m({ metaData: other }), ['spec.metaData.namespace']],
    ['spec.networkData', m3m({ networkData: other }), ['spec.networkData.namespace']],
    ['spec.dataTemplate', m3m({ dataTemplate: other }), ['spec.dataTemplate.namespace']],
    ['status.userData', m3m({}, { userData: other }), ['status.userData.namespace']],
    ['status.metaData', m3m({}, { metaData: other }), ['status.metaData.namespace']],
    ['status.networkData', m3m({}, { networkData: other }), ['status.networkData.namespace']],
    ['status.renderedData', m3m({}, { renderedData: other }), ['status.renderedData.namespace']],
    ['several', m3m({ userData: other, dataTemplate: other }), ['spec.userData.namespace', 'spec.dataTemplate.namespace']],
  ];
  // The message lists the fields in the shared table's order: `field ("namespace")`, comma separated.
  for (const [what, machine, fields] of rows) {
    const named = [...foreignReferencesMessage(machine).matchAll(/([\w.]+) \("tenant-b"\)/g)].map((m) => m[1]);
    assert.equal(named, fields, what);
  }
});

test('issue 21: the message names the fields and the machine namespace', () => {
  assert.is(foreignReferencesMessage(m3m({})), '');
  assert.is(
    foreignReferencesMessage(m3m({ dataTemplate: other })),
    'spec.dataTemplate.namespace ("tenant-b"): must be empty or the Metal3Machine namespace "tenant-a"; cross-namespace references are not allowed',
  );
});

test('issue 21: every field of the shared Metal3Machine table, naming another namespace, stops the machine with that field named', () => {
  for (const path of REFERENCE_FIELDS.Metal3Machine) {
    assert.match(foreignReferencesMessage(withReferenceAt(m3m({}), path, 'tenant-b')), `${path}.namespace ("tenant-b"): must be empty`, path);
  }
});

test.run();
