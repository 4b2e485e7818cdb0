// The structural diff itself: it must notice what changes admission and ignore what does not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Crd, SchemaNode } from './crds.ts';
import { diffCrds, keyOf } from './schema-diff.ts';

function crd(schema: SchemaNode, extra: Partial<Crd['spec']['versions'][number]> = {}): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'foos.x.io' },
    spec: {
      group: 'x.io',
      names: { kind: 'Foo', listKind: 'FooList', plural: 'foos', singular: 'foo', shortNames: ['f'], categories: ['cluster-api'] },
      scope: 'Namespaced',
      versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }],
    },
  };
}

// Property names that are also schema keywords must be walked as properties.
const base = (): SchemaNode => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['type', 'format'],
      properties: {
        type: { type: 'string', enum: ['a', 'b'] },
        format: { type: 'string', default: 'raw' },
        items: { type: 'array', items: { type: 'integer', maximum: 9000 } },
        map: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
});
const keys = (ours: SchemaNode, extra = {}) => diffCrds(crd(ours, extra), crd(base())).map(keyOf);

test('identical schemas, prose and CEL aside, have no differences', () => {
  const ours = base();
  ours.description = 'ours';
  ours['x-kubernetes-validations'] = [{ rule: 'true' }];
  assert.equal(keys(ours), []);
});

test('enum and required order do not matter', () => {
  const ours = base();
  const spec = ours.properties?.['spec'] as SchemaNode;
  spec.required = ['format', 'type'];
  (spec.properties?.['type'] as SchemaNode).enum = ['b', 'a'];
  assert.equal(keys(ours), []);
});

test('properties named like keywords are compared by name', () => {
  const ours = base();
  const props = (ours.properties?.['spec'] as SchemaNode).properties as Record<string, SchemaNode>;
  props['type'] = { type: 'string', enum: ['a'] };
  props['format'] = { type: 'string', default: 'qcow2' };
  delete props['map'];
  assert.equal(keys(ours), ['Foo v1beta1 .spec.format default', 'Foo v1beta1 .spec.map property', 'Foo v1beta1 .spec.type enum']);
});

test('items, map values and bounds are walked', () => {
  const ours = base();
  const props = (ours.properties?.['spec'] as SchemaNode).properties as Record<string, SchemaNode>;
  (props['items']?.items as SchemaNode).maximum = 1;
  props['map'] = { type: 'object', additionalProperties: { type: 'integer' } };
  props['format'] = { type: 'string', default: 'raw', maxLength: 10 };
  assert.equal(keys(ours), ['Foo v1beta1 .spec.format maxLength', 'Foo v1beta1 .spec.items[] maximum', 'Foo v1beta1 .spec.map{} type']);
});

test('names, versions, subresources and printer columns are compared; column prose is not', () => {
  const theirs = crd(base(), { additionalPrinterColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'x' }] });
  const ours = crd(base(), { subresources: { status: {} }, additionalPrinterColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'y' }] });
  ours.spec.names.shortNames = ['g'];
  assert.equal(diffCrds(ours, theirs).map(keyOf), ['Foo names.shortNames -', 'Foo versions[v1beta1].subresources -']);
  ours.spec.versions[0]!.additionalPrinterColumns![0]!.jsonPath = '.status.ready';
  assert.ok(diffCrds(ours, theirs).map(keyOf).includes('Foo versions[v1beta1].additionalPrinterColumns -'));
});

test.run();
