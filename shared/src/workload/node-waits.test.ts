import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newNode } from '@metal3-ts/generated/core/v1';
import { byNodeName, WaitIndex } from './node-waits.ts';

const test = suite('keyed waits on workload Nodes (the index)');
const A = { namespace: 'ns', name: 'a' };
const B = { namespace: 'ns', name: 'b' };

/** r1 and r2 wait in A (r2 for two keys), r3 in B for a key r1 also waits for in A. */
const index = (): WaitIndex => {
  const waits = new WaitIndex();
  waits.wait('ns/r1', A, ['n1']);
  waits.wait('ns/r2', A, ['n2', 'id:2']);
  waits.wait('ns/r3', B, ['n1']);
  return waits;
};

// Each row: the keys a Node of a cluster shows, and the waiters it wakes.
const rows: [string, typeof A, string[], string[]][] = [
  ['its one waiter', A, ['n1'], ['ns/r1']],
  ['a waiter by any of its keys', A, ['id:2'], ['ns/r2']],
  ['every waiter of every key it shows, once', A, ['n1', 'n2', 'id:2'], ['ns/r1', 'ns/r2']],
  ['only the waiters of its own cluster', B, ['n1', 'n2'], ['ns/r3']],
  ['nobody for a key nobody waits for', A, ['n9'], []],
  ['nobody in a cluster nobody waits in', { namespace: 'other', name: 'a' }, ['n1'], []],
  ['nobody when it shows no key', A, [], []],
];
for (const [what, cluster, keys, woken] of rows) {
  test(`a Node wakes ${what}`, () => {
    assert.equal(index().waitingFor(cluster, keys).sort(), woken);
  });
}

// Each row: the keys a list of a cluster's Nodes shows, and the waiters it wakes (none of their keys shown).
const listRows: [string, typeof A, string[], string[]][] = [
  ['every waiter of the cluster when it shows none of their keys', A, [], ['ns/r1', 'ns/r2']],
  ['not a waiter one of whose keys it shows', A, ['id:2'], ['ns/r1']],
  ['nobody when it shows every waiter a key', A, ['n1', 'n2'], []],
  ['only the waiters of its own cluster', B, ['n2'], ['ns/r3']],
  ['nobody in a cluster nobody waits in', { namespace: 'other', name: 'a' }, [], []],
];
for (const [what, cluster, keys, woken] of listRows) {
  test(`a list wakes ${what}`, () => {
    assert.equal(index().waitingWithout(cluster, new Set(keys)).sort(), woken);
  });
}

test('wait replaces what a waiter waited for; empty keys are no keys', () => {
  const waits = index();
  assert.is(waits.wait('ns/r2', A, ['n3', '']), undefined, 'still waits in A');
  assert.equal(waits.waitingFor(A, ['n2', 'id:2', '']), [], 'the old keys are gone');
  assert.equal(waits.waitingFor(A, ['n3']), ['ns/r2']);
  assert.is(waits.size, 3);
});

test('forget says when a cluster has nobody left waiting; a waiter with no key still holds its cluster', () => {
  const waits = index();
  assert.is(waits.forget('ns/r1'), undefined, 'r2 still waits in A');
  assert.is(waits.forget('ns/unknown'), undefined);
  waits.wait('ns/r4', A, []);
  assert.is(waits.forget('ns/r2'), undefined, 'r4 waits in A for no key yet');
  assert.equal(waits.forget('ns/r4'), A);
  assert.equal(waits.waitingFor(A, ['n2']), []);
  assert.is(waits.size, 1);
});

test('a waiter moving to another cluster leaves the first one to nobody', () => {
  const waits = index();
  assert.equal(waits.wait('ns/r3', A, ['n1']), B);
  assert.equal(waits.waitingFor(A, ['n1']).sort(), ['ns/r1', 'ns/r3']);
  assert.is(waits.wait('ns/r1', B, ['n1']), undefined, 'r2 and r3 still wait in A');
});

test('by default a Node shows its name', () => {
  assert.equal(byNodeName(newNode({ metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'h' } } })), ['n1']);
  assert.equal(byNodeName(newNode({ metadata: {} })), []);
});

test.run();
