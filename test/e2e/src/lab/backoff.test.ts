// The restart back-off as a table: first exit, doubling, the cap, the reset after a long run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KUBELET_POLICY, LAB_POLICY, restartDelay, type RestartPolicy } from './backoff.ts';

const cases: [string, RestartPolicy, number | undefined, number, number][] = [
  ['first exit: the initial delay', LAB_POLICY, undefined, 5, 1_000],
  ['a second exit soon after: doubled', LAB_POLICY, 1_000, 2_000, 2_000],
  ['and again', LAB_POLICY, 2_000, 500, 4_000],
  ['capped', LAB_POLICY, 16_000, 100, 30_000],
  ['stays at the cap', LAB_POLICY, 30_000, 100, 30_000],
  ['a long run resets it', LAB_POLICY, 30_000, 60_000, 1_000],
  ['just short of the reset still doubles', LAB_POLICY, 4_000, 59_999, 8_000],
  ['kubelet: 10 s first', KUBELET_POLICY, undefined, 0, 10_000],
  ['kubelet: 160 s → 300 s cap', KUBELET_POLICY, 160_000, 1_000, 300_000],
  ['kubelet: reset after 10 min', KUBELET_POLICY, 300_000, 600_000, 10_000],
  ['a previous delay below the initial one (policy changed) starts from the initial', { initialMs: 500, maxMs: 4_000, resetAfterMs: 10_000 }, 100, 0, 500],
];

for (const [name, policy, previous, ran, want] of cases) {
  test(`restartDelay: ${name}`, () => {
    assert.is(restartDelay(policy, previous, ran), want);
  });
}

test.run();
