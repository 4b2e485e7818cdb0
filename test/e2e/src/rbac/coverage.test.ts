// Every verb of every controller's ClusterRole is shown by an RBAC suite or listed with the reason it
// is not: a verb added to a manifest without a case fails here.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { caseKey, isInformerVerb, NOT_SHOWN, WRITE_CASES } from './cases.ts';
import { CONTROLLERS, verbCases } from './verbs.ts';

const test = suite('RBAC suites cover every verb of every ClusterRole');

test('each verb is a list/watch case, a write case or listed with its reason; nothing listed that no manifest grants', () => {
  const writes = new Set(WRITE_CASES.map(caseKey));
  const granted = new Set<string>();
  const missing: string[] = [];
  for (const controller of CONTROLLERS) {
    for (const c of verbCases(controller)) {
      const key = caseKey(c);
      granted.add(key);
      if (isInformerVerb(c)) continue;
      if (!writes.has(key) && NOT_SHOWN[key] === undefined) missing.push(key);
    }
  }
  assert.equal(missing, [], 'verbs with neither a case nor a reason');
  const stale = [...writes, ...Object.keys(NOT_SHOWN)].filter((key) => !granted.has(key));
  assert.equal(stale, [], 'cases of verbs no manifest grants');
});

test.run();
