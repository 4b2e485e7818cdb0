// The clusterctl variable check: every malformed or undeclared variable is refused with its name and
// line; a regex's `$` anchor is left alone; substitution follows drone/envsubst's operators.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { substitute, variableUses, VariableError } from './envsubst.ts';

const TAG = '${METAL3_TS_IMAGE_TAG:=0.1.0}';

test('well-formed declared variables are listed with their line and default', () => {
  const uses = variableUses(`a: 1\nimage: \${METAL3_TS_IMAGE_REGISTRY:=metal3-ts}/c:${TAG}\n`);
  assert.equal(uses.map((u) => [u.name, u.operator, u.default, u.line]), [
    ['METAL3_TS_IMAGE_REGISTRY', ':=', 'metal3-ts', 2],
    ['METAL3_TS_IMAGE_TAG', ':=', '0.1.0', 2],
  ]);
});

test('a `$` that opens no variable (regex end anchors) is literal', () => {
  assert.equal(variableUses("pattern: ^[a-z]+$\nrule: \"x.matches('^a$')\"\nother: (a$)|(b)\n"), []);
});

const refused: [string, string, RegExp][] = [
  ['unclosed', `image: \${METAL3_TS_IMAGE_TAG\n`, /malformed clusterctl variable "\$\{METAL3_TS_IMAGE_TAG"/],
  ['lower-case name', 'image: ${image_tag:=1}\n', /malformed clusterctl variable name "image_tag"/],
  ['bare $NAME', 'description: costs $HOME\n', /bare \$HOME: clusterctl would substitute it/],
  ['variable in a default', '${METAL3_TS_IMAGE_TAG:=${OTHER}}\n', /malformed clusterctl variable/],
  ['undeclared (missing from variables.ts)', 'x: ${METAL3_TS_NOPE:=1}\n', /METAL3_TS_NOPE is not declared: add it to release\/src\/variables.ts/],
  ['no default', 'x: ${METAL3_TS_IMAGE_TAG}\n', /has default null here but "0.1.0"/],
  ['another default', 'x: ${METAL3_TS_IMAGE_TAG:=9.9.9}\n', /has default "9.9.9" here but "0.1.0"/],
];
for (const [what, text, message] of refused) {
  test(`refused, naming it: ${what}`, () => {
    try {
      variableUses(`first: line\n${text}`);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, VariableError);
      assert.match((error as Error).message, /^line 2: /);
      assert.match((error as Error).message, message);
    }
  });
}

test('the error names the variable', () => {
  try {
    variableUses('x: ${METAL3_TS_NOPE:=1}');
  } catch (error) {
    assert.is((error as VariableError).variable, 'METAL3_TS_NOPE');
  }
});

test('substitute: := takes the default when unset or empty, a value otherwise', () => {
  const text = `image: \${METAL3_TS_IMAGE_REGISTRY:=metal3-ts}/controller-cluster:${TAG}`;
  assert.is(substitute(text, {}), 'image: metal3-ts/controller-cluster:0.1.0');
  assert.is(substitute(text, { METAL3_TS_IMAGE_TAG: '' }), 'image: metal3-ts/controller-cluster:0.1.0');
  assert.is(substitute(text, { METAL3_TS_IMAGE_REGISTRY: 'reg.example/m3', METAL3_TS_IMAGE_TAG: 'v2' }), 'image: reg.example/m3/controller-cluster:v2');
  assert.is(substitute('p: ^a$', {}), 'p: ^a$');
});

test.run();
