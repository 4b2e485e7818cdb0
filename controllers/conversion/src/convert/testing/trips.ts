// Test support: the round-trip property tests of a list of kinds, one uvu test per kind, starting
// version and schema source: byte-identical trips, valid intermediate objects, and every optional
// field present in some samples and absent in others.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { forcedByRules } from './cel.ts';
import { editTrip } from './edits.ts';
import { roundTrip } from './property.ts';

const samples = 400;
const starts = [['v1beta1', 'ours'], ['v1beta1', 'capm3-v1.13.2'], ['v1beta2', 'capm3-v1.13.2']] as const;

export function roundTripSuite(kinds: readonly string[]): void {
  const test = suite(`v1beta1 ⇄ v1beta2 round trips: ${kinds.join(', ')}`);
  for (const kind of kinds) {
    for (const [from, source] of starts) {
      test(`CV-2/CV-4: ${kind} ${from} (${source}) → other version → back is byte-identical, ${samples} seeded samples`, () => {
        const result = roundTrip({ kind, from, source, samples, firstSeed: 1000 });
        assert.equal(result.failures, [], result.failures.join('\n\n'));
        assert.equal(result.neverPresent, [], 'every field is present in some sample');
        assert.equal(result.alwaysPresent.filter((path) => !forcedByRules.has(path)), [], 'every optional field is absent in some sample');
      });
      test(`CV-2 (restore): ${kind} ${from} (${source}) edited in the other version, read and written back through ${from}: the edit is seen exactly`, () => {
        const failures = editTrip(kind, from, source, samples / 2, 5000);
        assert.equal(failures, [], failures.join('\n\n'));
      });
    }
  }
  test.run();
}
