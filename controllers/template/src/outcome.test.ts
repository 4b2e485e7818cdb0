// T-6, issue 16: how a template reconcile ends, from its plan and what its writes came to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isTerminalError } from '@metal3-ts/shared/reconcile/reconcile';
import type { CleaningModePlan } from './cleaning-mode.ts';
import { CleaningModeRejectedError, InvalidCleaningModeError, MachineUpdateError } from './errors.ts';
import { failureOf } from './outcome.ts';
import type { PropagationOutcome } from './phases/propagate-cleaning-mode.ts';
import { planTemplate } from './plan.ts';
import { machine, template } from './testing.ts';

const test = suite('template reconcile outcome');

const propagate: CleaningModePlan = { kind: 'propagate', mode: 'disabled', updates: [], inSync: 0, paused: 0 };
const writes = (o: Partial<PropagationOutcome>): PropagationOutcome => ({ updated: [], gone: [], rejected: [], failed: [], ...o });
const of = (cleaningMode: CleaningModePlan, propagation?: PropagationOutcome) =>
  failureOf({ plan: { paused: false, foreignReferences: undefined, cleaningMode }, observed: propagation ? { propagation } : {} });

test('every plan and write outcome: done, terminal bad input, or retried', () => {
  const rows: [string, Error | undefined, (new (...args: never[]) => Error) | undefined, boolean][] = [
    ['unset: done', of({ kind: 'unset' }), undefined, false],
    ['nothing to write: done', of(propagate), undefined, false],
    ['written, some gone: done', of(propagate, writes({ updated: ['a'], gone: ['b'] })), undefined, false],
    ['invalid mode: terminal', of({ kind: 'invalid', message: 'bad' }), InvalidCleaningModeError, true],
    ['rejected by the apiserver: terminal', of(propagate, writes({ rejected: [{ name: 'a', message: 'no' }] })), CleaningModeRejectedError, true],
    ['failed write: retried', of(propagate, writes({ failed: [{ name: 'a', error: new Error('500') }] })), MachineUpdateError, false],
    [
      'failed and rejected: retried (the retry tries the rejected machine again)',
      of(propagate, writes({ failed: [{ name: 'a', error: new Error('500') }], rejected: [{ name: 'b', message: 'no' }] })),
      MachineUpdateError,
      false,
    ],
  ];
  for (const [name, failure, type, terminal] of rows) {
    if (!type) assert.is(failure, undefined, name);
    else {
      assert.instance(failure, type, name);
      assert.is(isTerminalError(failure), terminal, name);
    }
  }
});

test('T-5, issue 21: the plan says paused and names references into another namespace', () => {
  const paused = planTemplate(template('t', { mode: 'disabled', annotations: { 'cluster.x-k8s.io/paused': '' } }), [machine('a')]);
  assert.is(paused.paused, true);
  assert.is(paused.foreignReferences, undefined);
  const running = planTemplate(template('t', { mode: 'disabled' }), []);
  assert.is(running.paused, false);
  assert.is(running.cleaningMode.kind, 'propagate');
});

test.run();
