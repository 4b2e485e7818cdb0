import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dataName, indexFromDataName } from './names.ts';

const test = suite('names');

test('DT-12: <template>-<index>, and back', () => {
  assert.is(dataName('nodepool-1', 0), 'nodepool-1-0');
  assert.is(indexFromDataName('nodepool-1', 'nodepool-1-12'), 12);
  assert.is(indexFromDataName('nodepool', 'nodepool-1-12'), undefined);
  assert.is(indexFromDataName('nodepool-1', 'nodepool-1-012'), undefined);
  assert.is(indexFromDataName('nodepool-1', 'other-1'), undefined);
});

test.run();
