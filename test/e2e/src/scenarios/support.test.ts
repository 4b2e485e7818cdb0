// Which run the environment asks the scenarios for: a bad value is refused, naming the variable and
// what it accepts, before any lab starts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capiFromEnv, metal3FromEnv } from './support.ts';

test('METAL3_VERSION: unset is as written (v1beta1); each served version is taken; anything else names the variable', () => {
  assert.is(metal3FromEnv(undefined), 'v1beta1');
  assert.is(metal3FromEnv(''), 'v1beta1');
  assert.is(metal3FromEnv('v1beta1'), 'v1beta1');
  assert.is(metal3FromEnv('v1beta2'), 'v1beta2');
  assert.throws(() => metal3FromEnv('v1alpha5'), (e: Error) => e.message === 'METAL3_VERSION must be one of v1beta1, v1beta2, got "v1alpha5"');
});

test('CAPI_VERSION: unset is the newest release; a release build-capi.sh does not know is refused', () => {
  assert.is(capiFromEnv(undefined), 'v1.13.5');
  assert.is(capiFromEnv('v1.10.10'), 'v1.10.10');
  assert.throws(() => capiFromEnv('v1.9.0'), (e: Error) => e.message.startsWith('CAPI_VERSION must be one of'));
});

test.run();
