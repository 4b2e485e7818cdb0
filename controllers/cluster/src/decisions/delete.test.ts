// C-11 (changed): the deletion of a Metal3Cluster waits for the Machines and Metal3Machines of its Cluster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deletionWait } from './delete.ts';

const test = suite('Metal3Cluster deletion wait');

test('C-11 (changed): deletion waits for Machines and Metal3Machines of the cluster, names them', () => {
  const obj = (name: string) => ({ apiVersion: 'v1', kind: 'X', metadata: { name } });
  assert.is(deletionWait('c1', { machines: [], metal3Machines: [] }), undefined);
  assert.is(deletionWait('c1', { machines: [obj('m1')], metal3Machines: [] }), 'Waiting for 1 Machine (m1) of Cluster c1 to be deleted');
  assert.is(
    deletionWait('c1', { machines: [obj('m2'), obj('m1')], metal3Machines: [obj('x')] }),
    'Waiting for 2 Machines (m1, m2) and 1 Metal3Machine (x) of Cluster c1 to be deleted',
  );
  const many = Array.from({ length: 7 }, (_, i) => obj(`n${i}`));
  assert.match(deletionWait('c1', { machines: [], metal3Machines: many }) ?? '', /^Waiting for 7 Metal3Machines \(n0, n1, n2, n3, n4, \.\.\.\)/);
});

test.run();
