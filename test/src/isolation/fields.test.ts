// Issue 21: the controllers' table of reference fields (REFERENCE_FIELDS in @metal3-ts/shared, which
// every controller's cross-namespace check reads) names exactly the reference fields with a namespace
// that the generated types have, so a field a CRD change adds fails here until the controllers check
// it too, as admission.test.ts fails until the policy and its case cover it. No apiserver needed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REFERENCE_FIELDS } from '@metal3-ts/shared/meta/references';
import { referenceFields } from './reference-fields.ts';

const test = suite('isolation: the controllers check every reference field (issue 21)');

test("issue 21: the controllers' reference table equals the namespaced reference fields of the generated types", () => {
  const enumerated = referenceFields().filter((f) => f.namespaced).map((f) => `${f.kind} ${f.path}`);
  const table = Object.entries(REFERENCE_FIELDS).flatMap(([kind, paths]) => paths.map((path) => `${kind} ${path}`));
  assert.equal([...table].sort(), [...enumerated].sort());
  assert.ok(table.length >= 18, `only ${table.length} fields in the table`);
});

test('issue 21: no field of the table sits in a list (the shared check walks plain objects only)', () => {
  for (const paths of Object.values(REFERENCE_FIELDS)) for (const path of paths) assert.not.match(path, /[[\]{}]/, path);
});

test.run();
