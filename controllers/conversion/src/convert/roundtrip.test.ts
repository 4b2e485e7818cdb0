import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { plurals } from './testing/schemas.ts';
import { roundTrip } from './testing/property.ts';

const test = suite('v1beta1 ⇄ v1beta2 round trips, every kind (CV-1, CV-2, CV-4 lossless both ways)');
const samples = 300;

for (const kind of Object.keys(plurals)) {
  for (const [from, source] of [['v1beta1', 'ours'], ['v1beta1', 'capm3-v1.13.2'], ['v1beta2', 'capm3-v1.13.2']] as const) {
    test(`CV-2/CV-4: ${kind} ${from} (${source}) → other version → back is byte-identical, ${samples} seeded samples`, () => {
      const result = roundTrip({ kind, from, source, samples, firstSeed: 1000 });
      assert.equal(result.failures, [], result.failures.join('\n\n'));
    });
  }
}

test.run();
