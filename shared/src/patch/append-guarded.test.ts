// appendGuarded: a guard on the whole list as read, then an append; a new list when there was none.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendGuarded } from './append-guarded.ts';

const test = suite('appendGuarded');
const PATH = '/metadata/finalizers';

const cases: [string, readonly string[] | undefined, unknown[]][] = [
  ['absent list: test null, add a new list', undefined, [{ op: 'test', path: PATH, value: null }, { op: 'add', path: PATH, value: ['x'] }]],
  ['empty list: same as absent', [], [{ op: 'test', path: PATH, value: null }, { op: 'add', path: PATH, value: ['x'] }]],
  ['existing list: test it whole, append at /-', ['a', 'b'], [{ op: 'test', path: PATH, value: ['a', 'b'] }, { op: 'add', path: `${PATH}/-`, value: 'x' }]],
];
for (const [name, current, want] of cases) {
  test(name, () => assert.equal(appendGuarded(PATH, current, 'x'), want));
}

test.run();
