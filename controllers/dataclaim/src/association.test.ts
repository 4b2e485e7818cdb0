import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { belongsToClaim, isLinkedToTemplate, linkKeysOfTemplate, templateRefOf } from './association.ts';
import { claim, data, template } from './testing.ts';

const test = suite('association: claim → template, Metal3Data → template and claim (DR-1, W-9, seed 003)');

test("W-9/DT-2: a claim names a template of its own namespace; empty names and other namespaces are refused with the webhook's words", () => {
  assert.equal(templateRefOf(claim('c')), { kind: 'Valid', namespace: 'ns', name: 'tmpl' });
  assert.equal(templateRefOf(claim('c', { templateNamespace: 'ns' })), { kind: 'Valid', namespace: 'ns', name: 'tmpl' });
  const foreign = templateRefOf(claim('c', { templateNamespace: 'other' }));
  assert.is(foreign.kind, 'Invalid');
  assert.match(
    foreign.kind === 'Invalid' ? foreign.message : '',
    /^spec\.template\.namespace: Invalid value: "other": must be empty or match the Metal3DataClaim namespace; cross-namespace template references are not allowed$/,
  );
  assert.equal(templateRefOf(claim('c', { template: '' })), { kind: 'Invalid', message: 'spec.template.name: must be set' });
});

test("DR-1 and the seed's three templateReference rules", () => {
  const old = template('old');
  const next = template('next', { templateReference: 'old' });
  const keyed = template('keyed', { templateReference: 'lineage' });
  const plain = template('plain');
  const oldData = data(old, claim('a', { template: 'old' }), 0);
  const nextData = data(next, claim('b', { template: 'next' }), 1);
  const keyedData = data(keyed, claim('c', { template: 'keyed' }), 2);
  const cases: [string, ReturnType<typeof data>, ReturnType<typeof template>, boolean][] = [
    ['(1) same template name', oldData, old, true],
    ["(3) the template adopts the data's older template", oldData, next, true],
    ['(1)+(2) own data carries the copied key', nextData, next, true],
    ['(2) same templateReference key', nextData, template('sibling', { templateReference: 'old' }), true],
    ["old does not see the newer template's data", nextData, old, false],
    ['unrelated key', keyedData, next, false],
    ['no key, other name', oldData, plain, false],
  ];
  for (const [what, d, t, expected] of cases) assert.is(isLinkedToTemplate(d, t), expected, what);
  assert.is(nextData.spec?.templateReference, 'old', "the Metal3Data carries the template's key");
  assert.equal(linkKeysOfTemplate(next), { byTemplateName: ['ns/next', 'ns/old'], byTemplateReference: ['ns/old'] });
  assert.equal(linkKeysOfTemplate(plain), { byTemplateName: ['ns/plain'], byTemplateReference: [] });
});

test('a Metal3Data belongs to a claim by name and the uid of its claim owner reference', () => {
  const t = template('tmpl');
  const me = claim('me');
  assert.ok(belongsToClaim(data(t, me, 0), me));
  assert.not.ok(belongsToClaim(data(t, claim('me', { uid: 'previous' }), 0), me), "a previous incarnation's");
  assert.not.ok(belongsToClaim(data(t, claim('other'), 0), me));
  const legacy = data(t, me, 0);
  legacy.metadata.ownerReferences = legacy.metadata.ownerReferences?.filter((r) => r.kind !== 'Metal3DataClaim');
  assert.ok(belongsToClaim(legacy, me), 'no claim owner: the template name decides');
  assert.not.ok(belongsToClaim(legacy, claim('me', { template: 'other' })));
});

test.run();
