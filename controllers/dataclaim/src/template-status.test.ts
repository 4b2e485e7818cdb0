import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ledgerEntryOf, ledgerHas, ledgerPatch } from './template-status.ts';
import { template } from './testing.ts';

const test = suite('template ledger: status.indexes and status.dataNames');

test("DT-14: one merge patch writes each claim's index and Metal3Data name; null drops an entry (DT-15)", () => {
  const entries = new Map([
    ['machine-1', { index: 0, dataName: 'nodepool-1-0' }],
    ['machine-2', null],
  ]);
  assert.equal(ledgerPatch(entries, new Date('2020-04-02T06:36:09.123Z')), {
    status: {
      indexes: { 'machine-1': 0, 'machine-2': null },
      dataNames: { 'machine-1': 'nodepool-1-0', 'machine-2': null },
      lastUpdated: '2020-04-02T06:36:09Z',
    },
  });
});

test('what the template already says: an entry needs both maps, a dropped one neither', () => {
  const t = template('nodepool-1', { status: { indexes: { 'machine-1': 0, half: 1 }, dataNames: { 'machine-1': 'nodepool-1-0' } } });
  assert.ok(ledgerHas(t.status, 'machine-1', { index: 0, dataName: 'nodepool-1-0' }));
  assert.not.ok(ledgerHas(t.status, 'machine-1', { index: 1, dataName: 'nodepool-1-1' }));
  assert.not.ok(ledgerHas(t.status, 'half', { index: 1, dataName: 'nodepool-1-1' }), 'an upstream-written entry lacks dataNames');
  assert.not.ok(ledgerHas(t.status, 'half', null));
  assert.ok(ledgerHas(t.status, 'absent', null));
  assert.ok(ledgerHas(undefined, 'absent', null));
  assert.equal(ledgerEntryOf(t, 'machine-1'), { index: 0, dataName: 'nodepool-1-0' });
  assert.is(ledgerEntryOf(t, 'half'), null);
});

test.run();
