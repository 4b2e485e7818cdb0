// How a template reconcile fails. Bad input is terminal (not retried: retrying cannot fix it, the
// next edit of the template or machine triggers a new reconcile); anything else is retried with the
// controller's per-item backoff.
import { TerminalError } from '@metal3-ts/shared/reconcile/reconcile';

/** The template's automatedCleaningMode is not a value Metal3Machines accept. */
export class InvalidCleaningModeError extends TerminalError {
  override name = 'InvalidCleaningModeError';
}

/** The apiserver refused the template's mode for some machines (422 Invalid); nothing else failed. */
export class CleaningModeRejectedError extends TerminalError {
  override name = 'CleaningModeRejectedError';
  readonly machines: readonly string[];
  constructor(machines: readonly string[], message: string) {
    super(message);
    this.machines = machines;
  }
}

/** Writing some machines failed in a way a retry may fix (network, 5xx, Forbidden until RBAC is fixed). */
export class MachineUpdateError extends Error {
  override name = 'MachineUpdateError';
  readonly machines: readonly string[];
  constructor(machines: readonly string[], causes: readonly unknown[]) {
    // CAPM3's message for the same failure: "failed to update metal3Machine: <name>".
    super(`failed to update metal3Machine: ${machines.join(', ')}: ${String(causes[0])}`, { cause: new AggregateError(causes) });
    this.machines = machines;
  }
}
