// The phase runner every controller's reconcile uses: where the list stops, how a failure is labelled,
// and how a failed status patch is aggregated with it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { patchAfterPhases, type Phase, runPhases } from './phases.ts';
import { StepError } from './step-error.ts';

interface Scope {
  readonly object: string;
  readonly ran: string[];
}
const scope = (): Scope => ({ object: 'Kind ns/a', ran: [] });
const phase = (step: string, run: () => unknown = () => undefined): Phase<null, Scope> => ({
  step,
  run: async (_ctx, s) => (s.ran.push(step), await run()) as never,
});

test('runPhases: every phase runs in order when none stops the list; no outcome, no failure', async () => {
  const s = scope();
  assert.equal(await runPhases(null, s, [phase('a'), phase('b'), phase('c')]), {});
  assert.equal(s.ran, ['a', 'b', 'c']);
});

test('runPhases: a phase returning an outcome (a wait) stops the list there', async () => {
  const s = scope();
  assert.equal(await runPhases(null, s, [phase('a'), phase('b', () => ({ requeueAfterMs: 5 })), phase('c')]), { outcome: { requeueAfterMs: 5 } });
  assert.equal(s.ran, ['a', 'b']);
});

test('runPhases: a phase that throws stops the list; its failure comes back (not thrown) labelled with object and step', async () => {
  const s = scope();
  const run = await runPhases(null, s, [phase('a'), phase('host claim', () => Promise.reject(new Error('boom'))), phase('c')]);
  assert.equal(s.ran, ['a', 'host claim']);
  assert.is(run.outcome, undefined);
  assert.instance(run.failure, StepError);
  assert.is((run.failure as StepError).step, 'host claim');
  assert.is((run.failure as StepError).object, 'Kind ns/a');
  assert.is((run.failure as Error).message, 'Kind ns/a: host claim failed: boom');
});

test('patchAfterPhases: a patch that succeeds throws nothing, even after a failed phase (the caller throws that)', async () => {
  let patched = 0;
  await patchAfterPhases('Kind ns/a', new Error('phase'), () => Promise.resolve(patched++));
  assert.is(patched, 1);
});

test('patchAfterPhases: a failed patch is thrown as is without a phase failure, aggregated with it otherwise', async () => {
  const patchError = new Error('patch');
  const failure = new Error('phase');
  const thrown = async (f: unknown) => {
    try {
      await patchAfterPhases('Kind ns/a', f, () => Promise.reject(patchError));
    } catch (error) {
      return error;
    }
    return undefined;
  };
  assert.is(await thrown(undefined), patchError);
  const both = await thrown(failure);
  assert.instance(both, AggregateError);
  assert.equal((both as AggregateError).errors, [patchError, failure]);
  assert.is((both as Error).message, 'Kind ns/a: the status patch failed after a failed step');
});

test.run();
