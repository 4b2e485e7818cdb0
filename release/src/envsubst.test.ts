// The clusterctl variable check: every malformed or undeclared variable is refused with its name and
// line; a regex's `$` anchor is left alone; substitution follows drone/envsubst's operators.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { substitute, VariableError, variableUses } from './envsubst.ts';

const QPS = '${METAL3_TS_KUBE_API_QPS:=20}';

test('well-formed declared variables are listed with their line and default', () => {
  const uses = variableUses(
    `a: 1\nargs: [--log-level=\${METAL3_TS_LOG_LEVEL:=info}, --kube-api-qps=${QPS}, --kube-api-burst=\${METAL3_TS_KUBE_API_BURST-30}]\n`,
  );
  assert.equal(uses.map((u) => [u.name, u.operator, u.default, u.line]), [
    ['METAL3_TS_LOG_LEVEL', ':=', 'info', 2],
    ['METAL3_TS_KUBE_API_QPS', ':=', '20', 2],
    ['METAL3_TS_KUBE_API_BURST', '-', '30', 2],
  ]);
});

test('a `$` that opens no variable (regex end anchors) is literal', () => {
  assert.equal(variableUses('pattern: ^[a-z]+$\nrule: "x.matches(\'^a$\')"\nother: (a$)|(b)\n'), []);
});

const refused: [string, string, RegExp][] = [
  ['unclosed', `qps: \${METAL3_TS_KUBE_API_QPS\n`, /malformed clusterctl variable "\$\{METAL3_TS_KUBE_API_QPS"/],
  ['lower-case name', 'image: ${image_tag:=1}\n', /malformed clusterctl variable name "image_tag"/],
  ['bare $NAME', 'description: costs $HOME\n', /bare \$HOME: clusterctl would substitute it/],
  ['variable in a default', '${METAL3_TS_KUBE_API_QPS:=${OTHER}}\n', /malformed clusterctl variable/],
  ['undeclared (missing from variables.ts)', 'x: ${METAL3_TS_NOPE:=1}\n', /METAL3_TS_NOPE is not declared: add it to release\/src\/variables.ts/],
  ['an empty default (clusterctl takes it for none)', 'x: ${METAL3_TS_KUBE_API_QPS:=}\n', /has an empty default, which clusterctl takes for none/],
  ['no default', 'x: ${METAL3_TS_KUBE_API_QPS}\n', /has default null here but "20"/],
  ['another default', 'x: ${METAL3_TS_KUBE_API_QPS:=50}\n', /has default "50" here but "20"/],
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

test('substitute: := takes the default when unset or empty, a value otherwise; = only when unset', () => {
  const text = `- --kube-api-qps=${QPS}`;
  assert.is(substitute(text, {}), '- --kube-api-qps=20');
  assert.is(substitute(text, { METAL3_TS_KUBE_API_QPS: '' }), '- --kube-api-qps=20');
  assert.is(substitute(text, { METAL3_TS_KUBE_API_QPS: '50' }), '- --kube-api-qps=50');
  assert.is(substitute('- ${METAL3_TS_KUBE_API_BURST=30}', { METAL3_TS_KUBE_API_BURST: '' }), '- ');
  assert.is(substitute('p: ^a$', {}), 'p: ^a$');
});

test.run();
