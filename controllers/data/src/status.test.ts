// D-8, D-9: the status a Metal3Data reconcile writes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveStatus, describeInvalid } from './status.ts';
import { data } from './testing.ts';

const test = suite('Metal3Data status');

test('D-9: ready clears an earlier error message', () => {
  const d = data((x) => (x.status = { errorMessage: 'old' }));
  deriveStatus(d, { kind: 'Ready', created: [] });
  assert.equal(d.status, { ready: true });
});

test('D-8: a wait clears the error message and leaves ready alone (never turned back to false)', () => {
  const d = data((x) => (x.status = { ready: true, errorMessage: 'old' }));
  deriveStatus(d, { kind: 'Waiting', reason: 'x' });
  assert.equal(d.status, { ready: true });
  const fresh = data();
  deriveStatus(fresh, { kind: 'Waiting', reason: 'x' });
  assert.is(fresh.status, undefined, 'no empty status is invented');
});

test("a render failure names the template field before upstream's message", () => {
  const outcome = {
    kind: 'Invalid',
    cause: 'RenderingFailed',
    message: 'bad MAC address: XX',
    field: 'spec.networkData.links.ethernets[0].macAddress',
  } as const;
  const d = data();
  deriveStatus(d, outcome);
  assert.equal(d.status, { errorMessage: 'spec.networkData.links.ethernets[0].macAddress: bad MAC address: XX' });
  assert.is(describeInvalid({ message: 'Metal3DataClaim name not set' }), 'Metal3DataClaim name not set');
});

test('a failed request is recorded as upstream does', () => {
  const d = data();
  deriveStatus(d, { kind: 'Failed', message: 'secret create failed' });
  assert.equal(d.status, { errorMessage: 'secret create failed' });
});

test('issue 21: a Secret in the way is named in the error message; ready is left alone', () => {
  const d = data((x) => (x.status = { ready: true }));
  deriveStatus(d, { kind: 'SecretConflict', message: 'Secret ns/s-metadata exists and is not controlled by this Metal3Data', secret: 's-metadata' });
  assert.equal(d.status, { ready: true, errorMessage: 'Secret ns/s-metadata exists and is not controlled by this Metal3Data' });
});

test('untouched means untouched', () => {
  const d = data((x) => (x.status = { errorMessage: 'kept' }));
  deriveStatus(d, { kind: 'Untouched' });
  assert.equal(d.status, { errorMessage: 'kept' });
});

test.run();
