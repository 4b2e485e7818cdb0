import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newNode, type Node } from '@metal3-ts/generated/core/v1';
import { WaitIndex } from '@metal3-ts/shared/workload/node-waits';
import { awaitedKeys, type AwaitedNode, nodeKeys } from './awaited-nodes.ts';

const test = suite('Metal3Machine awaited Nodes');
const A = { namespace: 'ns', name: 'a' };
const B = { namespace: 'ns', name: 'b' };
/** A Node as a kubelet registers it: its hostname label is its name unless told otherwise. */
const node = (name: string, providerID?: string, uuid?: string, hostname = name): Node =>
  newNode({
    metadata: { name, labels: { 'kubernetes.io/hostname': hostname, ...(uuid ? { 'metal3.io/uuid': uuid } : {}) } },
    spec: providerID ? { providerID } : {},
  });
const m1 = { providerIDs: ['metal3://ns/host-1/m1', 'metal3://u-1'], hostUid: 'u-1', hostnames: ['m1'] };
const m2 = { providerIDs: ['metal3://ns/host-2/m2', 'metal3://u-2'], hostUid: 'u-2', hostnames: ['m2', 'host-2'] };

test('keys: every identity a Node of the provider-ID rules may show (P-6, P-8, P-12), empty ones left out', () => {
  assert.equal(awaitedKeys(m1), ['id:metal3://ns/host-1/m1', 'id:metal3://u-1', 'uuid:u-1', 'hostname:m1']);
  assert.equal(awaitedKeys({ providerIDs: [''], hostnames: [''] }), []);
  assert.equal(nodeKeys(node('n', 'metal3://u-1', 'u-1', 'h')), ['id:metal3://u-1', 'uuid:u-1', 'hostname:h']);
  assert.equal(nodeKeys(newNode({ metadata: { name: 'bare' } })), [], 'the name alone is no identity (P-12 reads the hostname label)');
});

/** m1 and m2 wait in cluster A, as the reconcile records them (shared/workload/node-waits.ts). */
const waiting = (): WaitIndex => {
  const waits = new WaitIndex();
  const wait = (machine: string, awaited: AwaitedNode) => waits.wait(machine, A, awaitedKeys(awaited));
  wait('ns/m1', m1);
  wait('ns/m2', m2);
  return waits;
};

// Each row: a Node appearing in a cluster, and the machines it wakes.
const rows: [string, { readonly cluster: typeof A; readonly node: Node }, string[]][] = [
  ['labelled with the host UID (P-8)', { cluster: A, node: node('kubelet-1', undefined, 'u-1') }, ['ns/m1']],
  ['carrying a provider ID (P-6, P-7)', { cluster: A, node: node('x', 'metal3://ns/host-2/m2') }, ['ns/m2']],
  ['whose hostname label is a hostname (P-12)', { cluster: A, node: node('kubelet-9', undefined, undefined, 'host-2') }, ['ns/m2']],
  ['named like a hostname but labelled otherwise', { cluster: A, node: node('host-2', undefined, undefined, 'other') }, []],
  ['matching two machines at once (a conflict the reconcile reports)', { cluster: A, node: node('m1', undefined, 'u-2') }, ['ns/m1', 'ns/m2']],
  ['of no waiting machine', { cluster: A, node: node('other', 'metal3://elsewhere', 'u-9') }, []],
  ['of another cluster, though its identities match', { cluster: B, node: node('m1', undefined, 'u-1') }, []],
];
for (const [what, { cluster, node: n }, woken] of rows) {
  test(`a Node ${what} wakes ${woken.length ? woken.join(', ') : 'nobody'}`, () => {
    assert.equal(waiting().waitingFor(cluster, nodeKeys(n)).sort(), woken);
  });
}

test("a new wait replaces a machine's previous identities", () => {
  const waits = waiting();
  waits.wait('ns/m1', A, awaitedKeys({ providerIDs: [], hostUid: 'u-new', hostnames: [] }));
  assert.equal(waits.waitingFor(A, nodeKeys(node('n', undefined, 'u-1'))), [], 'the old identity is gone');
  assert.equal(waits.waitingFor(A, nodeKeys(node('n', undefined, 'u-new'))), ['ns/m1']);
});

test.run();
