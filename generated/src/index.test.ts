import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { x } from './index.ts';
test('probe', () => { assert.is(x, 1); });
test.run();
