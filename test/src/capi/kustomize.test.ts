// The kustomize subset and the variable expansion, on small inline kustomizations.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, expandDefaults, mergePatch, parseKustomization } from './kustomize.ts';

const files: Record<string, string> = {
  'kustomization.yaml': `
labels:
- pairs:
    cluster.x-k8s.io/v1beta1: v1beta1
resources:
- bases/a.yaml
patches:
- path: patches/a.yaml
namePrefix: capi-
`,
  'bases/a.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: as.example.io
  labels: {keep: me}
spec:
  group: example.io
  versions: [{name: v1, served: true, storage: true}]
`,
  'patches/a.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: as.example.io
spec:
  conversion:
    strategy: Webhook
    webhook: {clientConfig: {service: {name: webhook-service, namespace: system, path: /convert}}}
`,
};
const read = (p: string) => {
  const text = files[p];
  if (text === undefined) throw new Error(`no ${p}`);
  return text;
};

test('a kustomization applies its patches by kind and name, then its labels, keeping existing ones', () => {
  const k = parseKustomization(read('kustomization.yaml'), 'k');
  assert.equal(k, { resources: ['bases/a.yaml'], patches: ['patches/a.yaml'], labels: { 'cluster.x-k8s.io/v1beta1': 'v1beta1' }, namePrefix: 'capi-' });
  const [crd, ...rest] = build(k, read, 'k');
  assert.is(rest.length, 0);
  assert.equal(crd!.metadata.labels, { keep: 'me', 'cluster.x-k8s.io/v1beta1': 'v1beta1' });
  assert.equal((crd!['spec'] as { versions: unknown }).versions, [{ name: 'v1', served: true, storage: true }]);
  assert.is((crd!['spec'] as { conversion: { strategy: string } }).conversion.strategy, 'Webhook');
});

test('older commonLabels count as labels; a patch without a target is an error naming it', () => {
  assert.equal(parseKustomization('commonLabels: {a: b}\nresources: [x.yaml]', 'k').labels, { a: 'b' });
  const k = { resources: [], patches: ['patches/a.yaml'], labels: {}, namePrefix: '' };
  assert.throws(() => build(k, read, 'k'), /patches\/a\.yaml: patches CustomResourceDefinition as\.example\.io, which the kustomization does not have/);
  assert.throws(() => parseKustomization('patches:\n- patch: "inline"', 'k'), /only patches given by path/);
});

const cases: [unknown, unknown, unknown][] = [
  [{ a: 1, b: { c: 2, d: 3 } }, { b: { c: 4 } }, { a: 1, b: { c: 4, d: 3 } }],
  [{ a: [1, 2] }, { a: [3] }, { a: [3] }], // lists are replaced, not merged
  [{ a: 1, b: 2 }, { b: null }, { a: 1 }], // null deletes
  [undefined, { a: { b: 1 } }, { a: { b: 1 } }],
];
test('mergePatch: objects merge, lists and scalars replace, null deletes', () => {
  for (const [target, patch, want] of cases) assert.equal(mergePatch(target, patch), want);
});

test('expandDefaults takes each default and names a variable without one', () => {
  assert.is(expandDefaults('--feature-gates=A=${EXP_A:=true},B=${EXP_B:=false}', 'm'), '--feature-gates=A=true,B=false');
  assert.is(expandDefaults('--bootstrap-token-ttl=${TTL:=15m}', 'm'), '--bootstrap-token-ttl=15m');
  assert.is(expandDefaults('--plain', 'm'), '--plain');
  assert.throws(() => expandDefaults('--x=${NEEDED}', 'manager.yaml'), /manager\.yaml: variable NEEDED has no default/);
});

test.run();
