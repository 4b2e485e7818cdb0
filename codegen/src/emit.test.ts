import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCrds } from './crd.ts';
import { emitGroupVersion } from './emit-module.ts';
import { format } from './emit-types.ts';
import process from 'node:process';

const fixture = new URL('./testdata/widgets.yaml', import.meta.url);
const golden = new URL('./testdata/widgets.golden.ts.txt', import.meta.url);

async function emitWidgets(): Promise<string> {
  const [crd] = parseCrds(readFileSync(fixture, 'utf8'), 'testdata/widgets.yaml');
  const version = crd!.versions[0]!;
  const source = { label: 'testdata widgets.yaml', version: 'test', sha256: '0'.repeat(64) };
  const module = await emitGroupVersion(crd!.group, version.name, [{ crd: crd!, version, source, descriptions: true }]);
  return module.text;
}

test('golden: the fixture CRD emits exactly the recorded module (UPDATE_GOLDEN=1 rewrites it)', async () => {
  const text = await emitWidgets();
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(golden, text);
  assert.fixture(text, readFileSync(golden, 'utf8'));
});

test('unserved versions are dropped before emission', () => {
  const [crd] = parseCrds(readFileSync(fixture, 'utf8'), 'testdata/widgets.yaml');
  assert.equal(crd!.versions.map((v) => v.name), ['v1beta1']);
});

test('each schema feature maps to its honest TypeScript type', async () => {
  const text = await emitWidgets();
  const expect = (needle: string) => assert.ok(text.includes(needle), `missing: ${needle}`);
  expect('apiVersion: "example.metal3-ts.invalid/v1beta1";'); // literal apiVersion
  expect('kind: "Widget";');
  expect('metadata: ObjectMeta;'); // shared ObjectMeta, not {}
  expect('size: number;'); // required honoured
  expect('@default 3');
  expect('maxSurge?: IntOrString;');
  expect('mode?: "fast" | "slow";');
  expect('value?: JsonValue;'); // typeless preserve-unknown is any JSON value
  expect('blob?: JsonObject;');
  expect('labels?: Record<string, string>;');
  expect('ports?: Record<string, WidgetSpecPortsValue>;');
  expect('tags?: string[];'); // maxItems stays a plain array
  expect('note?: string | null;');
  expect('owner?: ObjectReference;'); // shared shape reused
  expect('conditions?: Condition[];');
  expect('empty?: Record<string, never>;');
  expect('when?: string;'); // date-time stays a string
  expect('export interface WidgetSpecField {\n  type: string;\n  format?: string;\n  default?: boolean;');
  assert.not.ok(text.includes('was referenced by'), 'tool prose leaked');
});

test('our own CRDs keep an unserved version on request, and its descriptor says it is not served yet', async () => {
  const [crd] = parseCrds(readFileSync(fixture, 'utf8'), 'testdata/widgets.yaml', { unserved: true });
  assert.equal(crd!.versions.map((v) => [v.name, v.served]), [['v1alpha1', false], ['v1beta1', true]]);
  const version = crd!.versions[0]!;
  const source = { label: 'testdata widgets.yaml', version: 'test', sha256: '0'.repeat(64) };
  const module = await emitGroupVersion(crd!.group, version.name, [{ crd: crd!, version, source, descriptions: true }]);
  assert.match(
    module.text,
    /\/\*\* Descriptor of Widget \(widgets\.example\.metal3-ts\.invalid\/v1alpha1\)\. Not served yet: the CRD declares this version with served: false\. \*\//,
  );
});

test('format indents by depth and ends members with semicolons', () => {
  assert.is(format('export interface A {\na: ("x" | "y")\nb?: B\n}'), 'export interface A {\n  a: "x" | "y";\n  b?: B;\n}');
});

test.run();
