import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  hostSelectorRequirements,
  InvalidHostSelectorError,
  labelKeyProblem,
  labelRequirement,
  matchesRequirements,
  requirementMatches,
  selectorString,
} from './label-selector.ts';

const test = suite('host label selector');

function throwsInvalid(fn: () => unknown, label: string): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, InvalidHostSelectorError, label);
    return;
  }
  assert.unreachable(`${label}: expected InvalidHostSelectorError`);
}

test('H-3: operators are lower-cased; In, NotIn, Exists, Gt, Lt work in any case; E-33 changed: DoesNotExist is accepted as !', () => {
  const ok = ['In', 'NOTIN', 'Exists', 'Gt', 'lt', '!', '=', '==', '!='];
  const values: Record<string, string[]> = { in: ['a'], notin: ['a'], exists: [], gt: ['1'], lt: ['1'], '!': [], '=': ['a'], '==': ['a'], '!=': ['a'] };
  for (const operator of ok) {
    const reqs = hostSelectorRequirements({ matchExpressions: [{ key: 'k', operator, values: values[operator.toLowerCase()] ?? [] }] });
    assert.is(reqs[0]?.operator, operator.toLowerCase(), operator);
  }
  for (const operator of ['DoesNotExist', 'doesnotexist']) {
    assert.is(hostSelectorRequirements({ matchExpressions: [{ key: 'k', operator }] })[0]?.operator, '!', operator);
  }
  throwsInvalid(() => hostSelectorRequirements({ matchExpressions: [{ key: 'k', operator: 'DoesNotExist', values: ['a'] }] }), 'DoesNotExist with values');
  throwsInvalid(() => hostSelectorRequirements({ matchExpressions: [{ key: 'k', operator: 'matches', values: ['a'] }] }), 'unknown operator');
});

test('H-3: value counts and formats are validated per operator (gt/lt values must be label values too: no sign)', () => {
  const invalid: [key: string, operator: string, values: string[]][] = [
    ['k', 'in', []],
    ['k', 'notin', []],
    ['k', '=', []],
    ['k', '==', ['a', 'b']],
    ['k', '!=', []],
    ['k', 'exists', ['a']],
    ['k', '!', ['a']],
    ['k', 'gt', []],
    ['k', 'gt', ['1', '2']],
    ['k', 'lt', ['one']],
    ['k', 'gt', ['9223372036854775808']],
    ['k', 'gt', ['-5']],
    ['k', 'lt', ['+5']],
    ['k', 'in', ['not a value']],
    ['k', '=', ['x'.repeat(64)]],
    ['', 'exists', []],
    ['-k', 'exists', []],
    ['/k', 'exists', []],
    ['Example.com/k', 'exists', []],
    ['a/b/c', 'exists', []],
    ['k'.repeat(64), 'exists', []],
  ];
  for (const [key, operator, values] of invalid) throwsInvalid(() => labelRequirement(key, operator, values), `${key} ${operator} ${values.join(',')}`);
  const valid: [key: string, operator: string, values: string[]][] = [
    ['example.com/rack', 'in', ['r1', '']],
    ['k', 'gt', ['9223372036854775807']],
    ['k', 'lt', ['007']],
    ['k.with_under-score', '=', ['A.b_c-1']],
  ];
  for (const [key, operator, values] of valid) labelRequirement(key, operator, values);
  assert.is(labelKeyProblem('infrastructure.cluster.x-k8s.io/node-reuse'), undefined);
});

test('H-2: matchLabels are equalities AND-ed with the expressions', () => {
  const reqs = hostSelectorRequirements({
    matchLabels: { pool: 'a', size: 'l' },
    matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }],
  });
  assert.is(matchesRequirements(reqs, { pool: 'a', size: 'l', rack: 'r2' }), true);
  assert.is(matchesRequirements(reqs, { pool: 'a', size: 'l', rack: 'r3' }), false);
  assert.is(matchesRequirements(reqs, { pool: 'a', rack: 'r1' }), false);
  assert.is(matchesRequirements(hostSelectorRequirements(undefined), undefined), true, 'empty selector matches everything');
});

test('H-3: matching semantics of every operator', () => {
  const table: [operator: string, values: string[], labels: Record<string, string>, matches: boolean][] = [
    ['in', ['a', 'b'], { k: 'b' }, true],
    ['in', ['a'], {}, false],
    ['=', ['a'], { k: 'a' }, true],
    ['==', ['a'], { k: 'x' }, false],
    ['notin', ['a'], {}, true],
    ['notin', ['a'], { k: 'a' }, false],
    ['notin', ['a'], { k: 'b' }, true],
    ['!=', ['a'], {}, true],
    ['!=', ['a'], { k: 'a' }, false],
    ['exists', [], { k: '' }, true],
    ['exists', [], {}, false],
    ['!', [], {}, true],
    ['!', [], { k: 'x' }, false],
    ['gt', ['5'], { k: '6' }, true],
    ['gt', ['5'], { k: '5' }, false],
    ['gt', ['5'], { k: 'six' }, false],
    ['gt', ['5'], {}, false],
    ['lt', ['5'], { k: '-7' }, true],
    ['lt', ['5'], { k: '9223372036854775807' }, false],
    ['gt', ['9223372036854775806'], { k: '9223372036854775807' }, true],
  ];
  for (const [operator, values, labels, matches] of table) {
    assert.is(requirementMatches(labelRequirement('k', operator, values), labels), matches, `${operator} ${values.join(',')} on ${JSON.stringify(labels)}`);
  }
});

test('selectorString renders the apiserver query syntax', () => {
  const reqs = [
    labelRequirement('pool', '=', ['a']),
    labelRequirement('rack', 'in', ['r2', 'r1']),
    labelRequirement('zone', 'notin', ['z']),
    labelRequirement('gpu', 'exists'),
    labelRequirement('broken', '!'),
    labelRequirement('cpus', 'gt', ['8']),
    labelRequirement('ram', 'lt', ['64']),
    labelRequirement('x', '!=', ['y']),
    labelRequirement('w', '==', ['v']),
  ];
  assert.is(selectorString(reqs), 'pool=a,rack in (r1,r2),zone notin (z),gpu,!broken,cpus>8,ram<64,x!=y,w==v');
});

test.run();
