// Local checks of what the apiserver demands of a CRD before it accepts it: a structural schema and
// well-formed x-kubernetes-validations. The real proof is test/src/crds (a live apiserver); these catch
// the usual mistakes without one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOurCrds, ourKinds, walkSchema, type SchemaNode } from './crds.ts';

const crds = loadOurCrds();
// Every version of every kind, each labelled `<kind> <version>`.
const schemas = ourKinds.flatMap((kind) => crds.get(kind)!.crd.spec.versions.map((v) => [`${kind} ${v.name}`, v.schema.openAPIV3Schema] as const));
const reasons = new Set(['FieldValueInvalid', 'FieldValueRequired', 'FieldValueForbidden', 'FieldValueDuplicate']);
const ruleKeys = new Set(['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf']);

test('every schema node has a type, unless it is int-or-string or keeps unknown fields', () => {
  for (const [kind, root] of schemas) {
    for (const [path, node] of walkSchema(root)) {
      if (node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true) continue;
      assert.ok(typeof node.type === 'string', `${kind} ${path || '(root)'} has no type`);
      if (node.type === 'array') assert.ok(node.items, `${kind} ${path} is an array without items`);
    }
  }
});

test('metadata at the root is a bare object (the apiserver owns its schema)', () => {
  for (const [kind, root] of schemas) assert.equal(root.properties?.['metadata'], { type: 'object' }, kind);
});

test('no schema uses keywords a structural schema forbids', () => {
  const forbidden = ['$ref', 'definitions', 'dependencies', 'patternProperties', 'additionalItems', 'uniqueItems'];
  for (const [kind, root] of schemas) {
    for (const [path, node] of walkSchema(root)) {
      for (const keyword of forbidden) assert.not.ok(keyword in node, `${kind} ${path} uses ${keyword}`);
      if (node.properties && typeof node.additionalProperties === 'object') assert.unreachable(`${kind} ${path} has properties and additionalProperties`);
    }
  }
});

test('validation rules are well formed', () => {
  for (const [kind, root] of schemas) {
    for (const [path, node] of walkSchema(root)) {
      for (const v of node['x-kubernetes-validations'] ?? []) {
        const where = `${kind} ${path || '(root)'}: ${v.rule}`;
        for (const key of Object.keys(v)) assert.ok(ruleKeys.has(key), `${where} has unknown key ${key}`);
        assert.ok(v.message || v.messageExpression, `${where} has no message`);
        if (v.reason) assert.ok(reasons.has(v.reason), `${where} reason ${v.reason}`);
        // optionalOldSelf is only allowed on transition rules, and those need a node that persists across updates.
        if (v.optionalOldSelf) assert.match(v.rule, /\boldSelf\.hasValue\(\)/, where);
        // `namespace` is a CEL reserved word: the field is reached as __namespace__, else the rule is dynamic and its cost unbounded.
        assert.not.match(v.rule, /\.namespace\b/, where);
        if (v.fieldPath) assert.ok(resolves(node, v.fieldPath), `${where} fieldPath ${v.fieldPath} is not in the schema`);
      }
    }
  }
});

test('transition rules (oldSelf) sit only on nodes that can be correlated with the old object', () => {
  for (const [kind, root] of schemas) {
    for (const [path, node] of walkSchema(root)) {
      const transition = (node['x-kubernetes-validations'] ?? []).some((v) => /\boldSelf\b/.test(v.rule));
      // Items of atomic lists have no old counterpart; a path through `[]` would make the rule never run.
      if (transition) assert.not.ok(path.includes('[]'), `${kind} ${path} has a transition rule inside a list`);
    }
  }
});

function resolves(node: SchemaNode, fieldPath: string): boolean {
  let at: SchemaNode | undefined = node;
  for (const name of fieldPath.split('.').slice(1)) at = at?.properties?.[name];
  return at !== undefined;
}

test.run();
