import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeReuseFor, nodeReuseForReleasingMachine, releasingMachineTemplate } from './node-reuse.ts';
import { machine, template } from './testing.ts';

const test = suite('node reuse policy for the Metal3Machine controller (N-1, N-6, N-7, X-10)');

test('N-1: nodeReuse is spec.nodeReuse, false when unset (CRD default) or without a template', () => {
  assert.is(nodeReuseFor(template('t', { nodeReuse: true })), true);
  assert.is(nodeReuseFor(template('t', { nodeReuse: false })), false);
  assert.is(nodeReuseFor(template('t')), false);
  assert.is(nodeReuseFor(undefined), false);
});

test('X-10: the releasing machine\'s template is named by cloned-from-name alone, in the machine\'s namespace', () => {
  assert.equal(releasingMachineTemplate(machine('m', { from: 'v1' })), { namespace: 'ns', name: 'v1' });
  assert.equal(releasingMachineTemplate(machine('m', { from: 'v1', groupKind: null })), { namespace: 'ns', name: 'v1' });
  assert.is(releasingMachineTemplate(machine('m', { from: null })), undefined);
  assert.is(releasingMachineTemplate(machine('m', { from: '' })), undefined);
});

test('N-6/N-7: reuse only when the released machine\'s template still exists with nodeReuse true; lookup errors mean no', async () => {
  const templates = new Map([
    ['ns/reuse', template('reuse', { nodeReuse: true })],
    ['ns/keep', template('keep', { nodeReuse: false })],
  ]);
  const lookup = (key: { namespace: string; name: string }) => templates.get(`${key.namespace}/${key.name}`);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), lookup), true);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'keep' }), lookup), false);
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'deleted' }), lookup), false, 'template gone');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: null }), lookup), false, 'not cloned');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), () => Promise.reject(new Error('boom'))), false, 'lookup failed');
  assert.is(await nodeReuseForReleasingMachine(machine('m', { from: 'reuse' }), (key) => Promise.resolve(lookup(key))), true, 'async lookup (a GET)');
});

test.run();
