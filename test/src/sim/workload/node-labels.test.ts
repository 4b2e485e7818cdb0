// The kubelet's --node-labels checks.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isValidNodeName, NodeLabelError, parseNodeLabels } from './node-labels.ts';

const test = suite('kubelet --node-labels');

test('parses k=v lists across repeated flags; later keys win; empty values allowed', () => {
  const cases: [string[], Record<string, string>][] = [
    [['metal3.io/uuid=4d25a2c2-46e4-11ec-81d3-0242ac130003'], { 'metal3.io/uuid': '4d25a2c2-46e4-11ec-81d3-0242ac130003' }],
    [['a=1, b=2', 'a=3'], { a: '3', b: '2' }],
    [['role='], { role: '' }],
    [['node.kubernetes.io/exclude-from-external-load-balancers=true'], { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' }],
    [['kubernetes.io/hostname=x', 'topology.kubernetes.io/zone=z1', 'x.kubelet.kubernetes.io/y=1'], {
      'kubernetes.io/hostname': 'x',
      'topology.kubernetes.io/zone': 'z1',
      'x.kubelet.kubernetes.io/y': '1',
    }],
    [[''], {}],
  ];
  for (const [values, want] of cases) assert.equal(parseNodeLabels(values), want, values.join(' | '));
});

test('entries the kubelet refuses to start with', () => {
  const cases = [
    'novalue',
    'metal3.io/uuid=CI_MISSING_JINJA_VAR/uuid',
    'metal3.io/uuid={{ ds.meta_data.uuid }}',
    'node-role.kubernetes.io/worker=',
    'example.k8s.io/x=1',
    'Bad_Prefix.io/x=1',
    `${'a'.repeat(64)}=1`,
    `a=${'b'.repeat(64)}`,
    '/x=1',
  ];
  for (const value of cases) assert.throws(() => parseNodeLabels([value]), (e: unknown) => e instanceof NodeLabelError, value);
});

test('node names are DNS subdomains', () => {
  const cases: [string, boolean][] = [
    ['node-0', true],
    ['worker.example.com', true],
    ['', false],
    ['Node-0', false],
    ['node_0', false],
    ['-node', false],
    ['a'.repeat(254), false],
  ];
  for (const [name, ok] of cases) assert.is(isValidNodeName(name), ok, name);
});

test.run();
