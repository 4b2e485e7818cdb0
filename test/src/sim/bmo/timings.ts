// How long the simulated provisioner takes. `instant` finishes every operation on the reconcile after
// it starts, so end-to-end tests move as fast as the apiserver; `bmoTestMode` uses the delays of a
// BMO run against its test provisioner (inspection 2 s, provisioning and deprovisioning 10 s).
// Durations are measured from the operation's start in `status.operationHistory`, so they survive a
// restart of the simulator.

export interface BmoTimings {
  /** From entering `inspecting` to hardware details reported. */
  readonly inspectionMs: number;
  /** From entering `provisioning` to `provisioned`. */
  readonly provisioningMs: number;
  /** Deprovisioning with automated cleaning (`automatedCleaningMode: metadata`, the default). */
  readonly deprovisioningMs: number;
  /** Deprovisioning with `automatedCleaningMode: disabled`: no disk wipe, so shorter. */
  readonly deprovisioningWithoutCleaningMs: number;
  /** BMO retries a host whose BMC credentials Secret is missing after 10 s. */
  readonly missingCredentialsRetryMs: number;
  /** When a failed operation is retried (BMO: 2^errorCount minutes, jittered down by up to half). */
  readonly errorBackoffMs: (errorCount: number) => number;
}

export type BmoSpeed = 'instant' | 'bmoTestMode';

/** BMO's backoff after a failed action, without the jitter (the upper bound of its range). */
export function bmoErrorBackoffMs(errorCount: number): number {
  return 2 ** Math.min(Math.max(errorCount, 0), 9) * 60_000;
}

const common = { missingCredentialsRetryMs: 10_000, errorBackoffMs: bmoErrorBackoffMs } as const;

export const instantTimings: BmoTimings = {
  ...common,
  inspectionMs: 0,
  provisioningMs: 0,
  deprovisioningMs: 0,
  deprovisioningWithoutCleaningMs: 0,
};

export const bmoTestModeTimings: BmoTimings = {
  ...common,
  inspectionMs: 2_000,
  provisioningMs: 10_000,
  deprovisioningMs: 10_000,
  deprovisioningWithoutCleaningMs: 1_000,
};

/** The preset for `speed` with `overrides` on top (tests shorten bmoTestMode to a few hundred ms). */
export function resolveTimings(speed: BmoSpeed = 'instant', overrides: Partial<BmoTimings> = {}): BmoTimings {
  return { ...(speed === 'bmoTestMode' ? bmoTestModeTimings : instantTimings), ...overrides };
}
