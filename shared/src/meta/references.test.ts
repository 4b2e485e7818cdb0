// Issue 21: which references of an object name another namespace, for every kind's field table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withReferenceAt } from '../testing/references.ts';
import { foreignReferences, REFERENCE_FIELDS, type ReferencingKind } from './references.ts';

const other = { name: 'x', namespace: 'tenant-b' };

/** An object of namespace tenant-a with `value` at the dotted `path`. */
const withAt = (path: string, value: unknown): { metadata: { namespace: string } } => {
  const object = { metadata: { namespace: 'tenant-a' } } as { metadata: { namespace: string } } & Record<string, unknown>;
  const keys = path.split('.');
  let node: Record<string, unknown> = object;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] ?? ''] = value;
  return object;
};
const base = { metadata: { namespace: 'tenant-a' } };

test("issue 21: each field of each kind's table naming another namespace is found, and only it", () => {
  for (const [kind, fields] of Object.entries(REFERENCE_FIELDS) as [ReferencingKind, readonly string[]][]) {
    for (const path of fields) {
      assert.equal(
        foreignReferences(withReferenceAt(base, path, 'tenant-b'), fields),
        [{ field: `${path}.namespace`, namespace: 'tenant-b' }],
        `${kind} ${path}`,
      );
    }
  }
});

test("issue 21: an absent reference, an empty namespace or the object's own are not foreign", () => {
  const fields = REFERENCE_FIELDS.Metal3Machine;
  const rows: [string, unknown][] = [
    ['no references', { metadata: { namespace: 'tenant-a' } }],
    ['no namespace', withAt('spec.userData', { name: 'u' })],
    ['empty namespace', withAt('spec.metaData', { name: 'm', namespace: '' })],
    ['own namespace', withAt('spec.dataTemplate', { name: 't', namespace: 'tenant-a' })],
    ['a parent that is not an object', withAt('spec', 'junk')],
    ['a namespace that is not a string', withAt('spec.userData', { name: 'u', namespace: 7 })],
  ];
  for (const [what, object] of rows) assert.equal(foreignReferences(object as { metadata: { namespace: string } }, fields), [], what);
});

test('issue 21: several foreign references come in the order of the table; an object without a namespace has none of its own', () => {
  const m3m = {
    metadata: { namespace: 'tenant-a' },
    spec: { dataTemplate: other, userData: { name: 'u', namespace: 'tenant-c' } },
    status: { renderedData: other },
  };
  assert.equal(foreignReferences(m3m, REFERENCE_FIELDS.Metal3Machine).map((f) => `${f.field}=${f.namespace}`), [
    'spec.userData.namespace=tenant-c',
    'spec.dataTemplate.namespace=tenant-b',
    'status.renderedData.namespace=tenant-b',
  ]);
  const unnamespaced = { metadata: {}, spec: { template: other } };
  assert.equal(foreignReferences(unnamespaced, REFERENCE_FIELDS.Metal3DataClaim).length, 1);
});

test('issue 21: only the fields asked for are looked at', () => {
  const claim = { metadata: { namespace: 'tenant-a' }, spec: { template: other }, status: { renderedData: other } };
  assert.equal(foreignReferences(claim, ['status.renderedData']).map((f) => f.field), ['status.renderedData.namespace']);
  assert.equal(foreignReferences(claim, []), []);
});

test.run();
