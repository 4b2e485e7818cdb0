import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareCodeUnits } from './compare.ts';

const test = suite('compareCodeUnits');

test('orders by UTF-16 code units, as Go sorts strings, whatever the locale', () => {
  assert.equal(['b', 'a-2', 'B', 'ä', 'a-10', 'z', ''].sort(compareCodeUnits), ['', 'B', 'a-10', 'a-2', 'b', 'z', 'ä']);
  assert.is(compareCodeUnits('x', 'x'), 0);
});

test.run();
