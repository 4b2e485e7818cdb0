import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ForbiddenError, NotFoundError } from '@metal3-ts/generated';
import { describeFailure, isPermanentListWatchFailure, ListWatchHealth, type ListWatchVerb } from './list-watch-health.ts';

const test = suite('list/watch health');

const forbidden = () =>
  new ForbiddenError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'User "u" cannot watch resource "baremetalhosts"' }, {
    verb: 'GET',
    path: '/x',
  });
const notFound = () =>
  new NotFoundError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' }, {
    verb: 'GET',
    path: '/x',
  });
const reset = () => new Error('read ECONNRESET');

type Step = [ListWatchVerb, 'ok' | (() => unknown)];
const cases: { name: string; steps: Step[]; problems: string[] }[] = [
  { name: 'healthy', steps: [['list', 'ok'], ['watch', 'ok']], problems: [] },
  {
    name: 'a refused watch is a problem at once, whatever the list does',
    steps: [['list', 'ok'], ['watch', forbidden], ['list', 'ok']],
    problems: ['watch/403/1'],
  },
  { name: 'a missing kind (404 list) is a problem at once', steps: [['list', notFound]], problems: ['list/404/1'] },
  { name: 'two network failures are not yet a problem', steps: [['watch', reset], ['watch', reset]], problems: [] },
  { name: 'three in a row are', steps: [['watch', reset], ['watch', reset], ['watch', reset]], problems: ['watch/0/3'] },
  { name: 'a success of the verb clears it', steps: [['watch', forbidden], ['watch', 'ok']], problems: [] },
  { name: 'a success of the other verb does not', steps: [['watch', reset], ['watch', reset], ['list', 'ok'], ['watch', reset]], problems: ['watch/0/3'] },
];

for (const c of cases) {
  test(c.name, () => {
    const health = new ListWatchHealth();
    for (const [verb, step] of c.steps) {
      if (step === 'ok') health.succeeded(verb);
      else health.failed(verb, step());
    }
    assert.equal(health.problems().map((p) => `${p.verb}/${p.code}/${p.count}`), c.problems);
  });
}

// One vocabulary with refusalOf (controller/refusal.ts) plus 404, the kind not served.
const permanence: [code: number, permanent: boolean][] = [
  [401, true],
  [403, true],
  [404, true],
  [400, true],
  [422, true],
  [405, true],
  [0, false],
  [409, false],
  [410, false],
  [429, false],
  [500, false],
  [503, false],
  [504, false],
];
for (const [code, permanent] of permanence) {
  test(`status ${code} ${permanent ? 'is' : 'is not'} a permanent list/watch failure`, () => assert.is(isPermanentListWatchFailure(code), permanent));
}

test('succeeded reports the problem it cleared, and the description names verb, resource and status', () => {
  const health = new ListWatchHealth();
  const failure = health.failed('watch', forbidden());
  assert.is(
    describeFailure('baremetalhosts.metal3.io', failure),
    'cannot watch baremetalhosts.metal3.io (1 attempt): 403 Forbidden: User "u" cannot watch resource "baremetalhosts"',
  );
  assert.is(health.succeeded('watch')?.code, 403);
  assert.is(health.succeeded('watch'), undefined);
});

test.run();
