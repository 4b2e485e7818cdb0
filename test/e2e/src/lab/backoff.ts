// When a supervised controller that exited is started again: the kubelet's CrashLoopBackOff rule (the
// delay doubles with each exit, up to a cap, and starts over once the process had run long enough),
// with the numbers as parameters. A pure function, so the lab, the chaos run and their tests share it.

export interface RestartPolicy {
  /** Delay before the first restart, and again after a long enough run. */
  readonly initialMs: number;
  /** The delay never exceeds this. */
  readonly maxMs: number;
  /** A process that ran at least this long before exiting restarts after `initialMs` again. */
  readonly resetAfterMs: number;
}

/** The kubelet's numbers: 10 s doubling to 5 min, reset after 10 min of running (2 × the cap). */
export const KUBELET_POLICY: RestartPolicy = { initialMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 };

/**
 * The lab's: the same rule on a human scale. One second first, so an apiserver outage costs seconds
 * rather than the kubelet's ten; capped at 30 s; reset after a minute of running.
 */
export const LAB_POLICY: RestartPolicy = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

/**
 * The delay before the next start of a process that ran `ranMs` and exited, given the delay used
 * before its previous start (undefined for the first exit).
 */
export function restartDelay(policy: RestartPolicy, previousDelayMs: number | undefined, ranMs: number): number {
  if (previousDelayMs === undefined || ranMs >= policy.resetAfterMs) return policy.initialMs;
  return Math.min(policy.maxMs, Math.max(policy.initialMs, previousDelayMs * 2));
}
