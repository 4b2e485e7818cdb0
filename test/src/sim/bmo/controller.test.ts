// The simulated BMO's event filter: its own status writes must not wake it, everything a user or
// CAPM3 changes must.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BareMetalHost, newBareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { hostChanges } from './controller.ts';

const test = suite('BMO event filter');

const base = (): BareMetalHost =>
  newBareMetalHost({
    metadata: {
      name: 'h',
      namespace: 'ns',
      generation: 1,
      resourceVersion: '1',
      labels: { a: 'b' },
      annotations: { x: 'y' },
      finalizers: ['baremetalhost.metal3.io'],
    },
    spec: { online: false },
    status: { errorCount: 0, errorMessage: '', operationalStatus: 'OK', poweredOn: false, provisioning: { ID: '', state: 'available' } },
  });

test('status-only and label-only updates are dropped; spec, annotations, finalizers and deletion pass', () => {
  const update = (change: (h: BareMetalHost) => void): boolean => {
    const old = base();
    const obj = structuredClone(old);
    obj.metadata.resourceVersion = '2';
    change(obj);
    return hostChanges.update!(old, obj);
  };
  assert.is(update((h) => (h.status!.poweredOn = true)), false, 'status');
  assert.is(update((h) => (h.metadata.labels = { a: 'c' })), false, 'labels');
  assert.is(update((h) => (h.metadata.generation = 2)), true, 'spec (generation)');
  assert.is(update((h) => (h.metadata.annotations = { x: 'z' })), true, 'annotation changed');
  assert.is(update((h) => delete h.metadata.annotations), true, 'annotations removed');
  assert.is(update((h) => (h.metadata.finalizers = [])), true, 'finalizers');
  assert.is(update((h) => (h.metadata.deletionTimestamp = '2026-01-01T00:00:00Z')), true, 'deletion');
  assert.is(hostChanges.create, undefined, 'creates pass');
  assert.is(hostChanges.delete, undefined, 'deletes pass');
});

test.run();
