// DR-22/DR-23 against the real thing: 700 seeded random JSON documents with
// hostile strings (numbers in every base, dates, indicators, YAML 1.1 look-alikes, breaks, tabs, NEL, BOM,
// astral characters, long lines) and the bytes sigs.k8s.io/yaml v1.6.0 wrote
// for them (testdata/make-corpus.ts, testdata/oracle).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toYaml, type YamlValue } from './yaml.ts';

const test = suite('render/yaml: byte-for-byte against sigs.k8s.io/yaml');

const corpus = JSON.parse(readFileSync(new URL('./testdata/yaml-v2-corpus.json', import.meta.url), 'utf8')) as Array<[YamlValue, string]>;

test('DR-22/DR-23: every corpus document serialises to exactly the bytes sigs.k8s.io/yaml produced', () => {
  assert.ok(corpus.length >= 690, `corpus has ${corpus.length} documents`);
  const mismatches = corpus.filter(([doc, expected]) => toYaml(doc) !== expected);
  assert.equal(mismatches.slice(0, 3), [], `${mismatches.length} of ${corpus.length} differ`);
});

test.run();
