import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { byClonedFromTemplate, clonedFromTemplate } from './cloned-from.ts';
import { metal3MachineToTemplate, propagationInputsChanged } from './mappers.ts';
import { machine } from './testing.ts';

const test = suite('cloned-from: which template a Metal3Machine belongs to, and the Metal3Machine watch');

const cases: [string, Parameters<typeof machine>[1], string | undefined][] = [
  ['both annotations naming a Metal3MachineTemplate', {}, 'ns/tmpl'],
  ["another namespace: the template is in the machine's namespace", { namespace: 'other' }, 'other/tmpl'],
  ['groupkind of another kind (E-15: CAPM3 maps any non-empty groupkind)', { groupKind: 'KubeadmConfigTemplate.bootstrap.cluster.x-k8s.io' }, undefined],
  ['groupkind with the right kind but another group', { groupKind: 'Metal3MachineTemplate.example.com' }, undefined],
  ['groupkind in another letter case', { groupKind: 'metal3machinetemplate.infrastructure.cluster.x-k8s.io' }, undefined],
  ['no groupkind annotation', { groupKind: null }, undefined],
  ['no name annotation', { from: null }, undefined],
  ['empty name', { from: '' }, undefined],
];

for (const [what, options, expected] of cases) {
  test(`T-2/T-6: ${what} → ${expected ?? 'no template'}`, () => {
    const m = machine('m', options);
    const key = clonedFromTemplate(m);
    assert.is(key ? `${key.namespace}/${key.name}` : undefined, expected);
    assert.equal(byClonedFromTemplate(m), expected ? [expected] : [], 'index value');
    assert.equal(metal3MachineToTemplate(m), key ? [{ namespace: key.namespace, name: key.name }] : [], 'mapped request');
  });
}

test('T-2: machine updates wake the template only when its mode, its cloned-from annotations or its pause change', () => {
  const base = machine('m', { mode: 'metadata' });
  const rows: [string, ReturnType<typeof machine>, boolean][] = [
    ['status-only write', { ...base, status: { ready: true } }, false],
    ['unrelated label', { ...base, metadata: { ...base.metadata, labels: { a: 'b' } } }, false],
    ['providerID set', { ...base, spec: { ...base.spec, providerID: 'metal3://x' } }, false],
    ['mode changed', machine('m', { mode: 'disabled' }), true],
    ['mode removed', machine('m'), true],
    ['cloned from another template', machine('m', { mode: 'metadata', from: 'other' }), true],
    ['groupkind changed', machine('m', { mode: 'metadata', groupKind: 'X.y' }), true],
    ['paused', machine('m', { mode: 'metadata', annotations: { 'cluster.x-k8s.io/paused': '' } }), true],
  ];
  for (const [what, next, passes] of rows) assert.is(propagationInputsChanged.update!(base, next), passes, what);
  assert.ok(propagationInputsChanged.create!(base), 'creates pass');
  assert.not.ok(propagationInputsChanged.delete!(base), 'deletes are dropped');
});

test.run();
