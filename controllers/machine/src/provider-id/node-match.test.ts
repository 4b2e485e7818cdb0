// P-4, P-5 (every V-9 row), P-8 with the E-11 fix, P-12: which workload Node is this machine's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { duplicateProviderIDProblem, findNodeByProviderID, nodeByHostname, nodeByUuidLabel, type NodeView, uuidLabelSelector } from './node-match.ts';

const test = suite('providerID node matching');

const UID = 'd668eb95-5df6-4c10-a01a-fc69f4299fc6';
const LEGACY = `metal3://${UID}`;
const SHORT = 'metal3://d668eb95-5df6-4c10-a01a';
const XYZ = 'metal3://metal3/node-0/test-controlplane-xyz';
const N123 = 'metal3://metal3/node-0/test-controlplane-123';
const N000 = 'metal3://metal3/node-0/test-controlplane-000';
const candidates = { legacy: LEGACY, new: XYZ };
const both = (legacy: string, newId: string, names: string): string =>
  `both providerIDs (${legacy} and ${newId}) cannot be used at the same time by node: (${names})`;

// V-9, in the research's row order: validNodes, legacy, new, expected problem (undefined = none).
const v9: [row: string, validNodes: Record<string, string[]> | undefined, legacy: string, newId: string, expected: string | undefined][] = [
  ['1: legacy and new in use at once', { [LEGACY]: ['test1'], [XYZ]: ['test2'] }, LEGACY, XYZ, both(LEGACY, XYZ, 'test1, test2')],
  ['2: one ID on two nodes', { [LEGACY]: ['test1', 'test2'] }, '', '', `providerID ${LEGACY} is in use by multiple nodes: (test1, test2)`],
  ['3: only legacy in use', { [LEGACY]: ['test1'] }, LEGACY, XYZ, undefined],
  ['4: only new in use', { [XYZ]: ['test1'] }, LEGACY, XYZ, undefined],
  ['5: no valid nodes (nil map)', undefined, LEGACY, XYZ, undefined],
  ['6: a shared metal3://metal3/node-0/ prefix is a duplicate', { [XYZ]: ['test1'], [N123]: ['test2'] }, '', N000, both('', N000, 'test1, test2')],
  ['7: legacy plus another ID with the new prefix', { [LEGACY]: ['test1'], [N123]: ['test2'] }, LEGACY, N000, both(LEGACY, N000, 'test1, test2')],
  ['8: a longer legacy-looking ID is not legacy', { [LEGACY]: ['test1'], [SHORT]: ['test2'] }, SHORT, N000, undefined],
  [
    '9: new without a name part has prefix metal3://, which both IDs contain',
    { 'metal3://worker-1': ['test1'], 'metal3://worker-10': ['test2'] },
    '',
    'metal3://worker-1',
    both('', 'metal3://worker-1', 'test1, test2'),
  ],
  [
    '10: an empty new ID has an empty prefix, which matches everything',
    { [LEGACY]: ['test1'], [SHORT]: ['test2'] },
    SHORT,
    '',
    both(SHORT, '', 'test1, test2'),
  ],
  ['11: an empty new ID with one node in use', { [SHORT]: ['test1'] }, SHORT, '', undefined],
  ['12: empty legacy and new with one node in use', { [SHORT]: ['test1'] }, '', '', undefined],
];
for (const [row, validNodes, legacy, newId, expected] of v9) {
  test(`P-5 / V-9 row ${row}`, () => {
    const map = validNodes === undefined ? undefined : new Map(Object.entries(validNodes));
    assert.is(duplicateProviderIDProblem(map, legacy, newId), expected);
  });
}

test('P-5: the new prefix counts anywhere in an ID ("contains", not "starts with")', () => {
  const map = new Map([[LEGACY, ['test1']], [`other://${N123}`, ['test2']]]);
  assert.is(duplicateProviderIDProblem(map, LEGACY, XYZ), both(LEGACY, XYZ, 'test1, test2'));
});

test('P-5: with several duplicated IDs the first one in list order is reported', () => {
  const map = new Map([['metal3://a', ['n1', 'n2']], ['metal3://b', ['n3', 'n4']]]);
  assert.is(duplicateProviderIDProblem(map, LEGACY, XYZ), 'providerID metal3://a is in use by multiple nodes: (n1, n2)');
});

const node = (name: string, providerID?: string, labels?: Record<string, string>): NodeView => ({ name, providerID, labels });
const describe = (found: ReturnType<typeof findNodeByProviderID>): string => ('node' in found ? `node:${found.node.name}` : `problem:${found.problem}`);

const p4: [title: string, nodes: NodeView[], expected: string][] = [
  ['P-4: the node with the new ID', [node('a', 'metal3://x'), node('b', XYZ), node('c')], 'node:b'],
  ['P-4: the node with the legacy ID', [node('a', LEGACY), node('b', 'metal3://other/node-1/m')], 'node:a'],
  ['P-4: no nodes at all', [], 'problem:unable to find node with matching ProviderID'],
  [
    'P-4: nodes without providerIDs or with foreign ones do not match',
    [node('a'), node('b', ''), node('c', 'metal3://other/node-1/m')],
    'problem:unable to find node with matching ProviderID',
  ],
  ['P-4: a nameless node is ignored, even with our ID', [node('', XYZ)], 'problem:unable to find node with matching ProviderID'],
  [
    'P-4 / P-5: a duplicate is a problem even when a match exists',
    [node('a', XYZ), node('b', XYZ)],
    `problem:providerID ${XYZ} is in use by multiple nodes: (a, b)`,
  ],
  ['P-4 / P-5: legacy and new on two nodes', [node('a', LEGACY), node('b', 'metal3://x'), node('c', XYZ)], `problem:${both(LEGACY, XYZ, 'a, c')}`],
  ['P-4 / P-5: another machine on the same host counts as ours', [node('a', XYZ), node('b', N123)], `problem:${both(LEGACY, XYZ, 'a, b')}`],
  [
    'P-4 / P-5: a foreign ID on two nodes blocks the lookup',
    [node('a', XYZ), node('b', 'metal3://x'), node('c', 'metal3://x')],
    'problem:providerID metal3://x is in use by multiple nodes: (b, c)',
  ],
];
for (const [title, nodes, expected] of p4) {
  test(title, () => assert.is(describe(findNodeByProviderID(nodes, candidates)), expected));
}

test('P-4: the node returned is the listed one, labels and all', () => {
  const b = node('b', LEGACY, { x: 'y' });
  const found = findNodeByProviderID([node('a', 'metal3://x'), b], candidates);
  assert.ok('node' in found && found.node === b);
});

test('P-8: the label selector is metal3.io/uuid=<uid>', () => {
  assert.is(uuidLabelSelector(UID), `metal3.io/uuid=${UID}`);
});

const label = `metal3.io/uuid=${UID}`;
const p8: [title: string, nodes: NodeView[], configRef: boolean, expected: ReturnType<typeof nodeByUuidLabel>][] = [
  ['P-8: no labelled node while the configRef is defined: wait', [], true, { kind: 'wait', message: `requeuing, could not find node with label: ${label}` }],
  ['P-8: no labelled node and no configRef (dataSecretName only): fall through', [], false, {
    kind: 'fallthrough',
    reason: `no Node labelled ${label} and the Machine has no bootstrap configRef`,
  }],
  ['P-8 / P-11: one node without a providerID: set new and patch the node', [node('n', undefined)], true, {
    kind: 'set',
    node: 'n',
    providerID: XYZ,
    patchNode: 'n',
  }],
  ['P-8 / P-11: one node with an empty providerID: set new and patch the node', [node('n', '')], false, {
    kind: 'set',
    node: 'n',
    providerID: XYZ,
    patchNode: 'n',
  }],
  ['P-8: one node with the new ID: set new, no patch', [node('n', XYZ)], true, { kind: 'set', node: 'n', providerID: XYZ }],
  ['P-8: one node with the legacy ID: set legacy, no patch', [node('n', LEGACY)], true, { kind: 'set', node: 'n', providerID: LEGACY }],
  ['P-8 / E-11 (fixed), B2-18: two labelled nodes are a conflict, not "no error"', [node('a', XYZ), node('b')], true, {
    kind: 'conflict',
    message: `more than one Node labelled ${label}: (a, b)`,
  }],
  ['P-8 / E-11 (fixed), B2-18: several labelled nodes are a conflict without a configRef too', [node('a'), node('b'), node('c')], false, {
    kind: 'conflict',
    message: `more than one Node labelled ${label}: (a, b, c)`,
  }],
  [
    'P-8 / E-11 (fixed), B2-18: one node with a foreign providerID is a conflict',
    [node('n', N123)],
    true,
    { kind: 'conflict', message: `Node n labelled ${label} has providerID ${N123}, expected ${XYZ} or ${LEGACY}` },
  ],
];
for (const [title, nodes, configRef, expected] of p8) {
  test(title, () => assert.equal(nodeByUuidLabel(nodes, candidates, configRef, UID), expected));
}

const host = (name: string, hostname?: string): NodeView =>
  node(name, undefined, hostname === undefined ? { 'kubernetes.io/os': 'linux' } : { 'kubernetes.io/hostname': hostname });
const p12: [title: string, nodes: NodeView[], hostnames: string[], expected: ReturnType<typeof nodeByHostname>][] = [
  ['P-12: no machine hostname (checked before the nodes)', [], [], { kind: 'wait', message: 'No machine hostname' }],
  ['P-12: no machine hostname with nodes present', [host('a', 'node-0')], [], { kind: 'wait', message: 'No machine hostname' }],
  ['P-12: no nodes at all', [], ['node-0'], { kind: 'wait', message: 'no Nodes found' }],
  ['P-12: no node matches any hostname', [host('a', 'node-9'), host('b'), node('c')], ['node-0', 'node-0.example'], {
    kind: 'wait',
    message: 'no nodes matching hostnames: node-0, node-0.example',
  }],
  ['P-12: several nodes match', [host('a', 'node-0'), host('b', 'node-0.example')], ['node-0', 'node-0.example'], {
    kind: 'wait',
    message: 'multiple nodes matching hostnames: node-0, node-0.example',
  }],
  ['P-12: exactly one node matches: patch it', [host('a', 'node-9'), host('b'), host('c', 'node-0.example')], ['node-0', 'node-0.example'], {
    kind: 'patch',
    node: 'c',
  }],
  ['P-12: the label must be present; the node name does not count', [host('node-0')], ['node-0'], {
    kind: 'wait',
    message: 'no nodes matching hostnames: node-0',
  }],
];
for (const [title, nodes, hostnames, expected] of p12) {
  test(title, () => assert.equal(nodeByHostname(nodes, hostnames), expected));
}

test.run();
