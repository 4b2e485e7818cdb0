// How a template reconcile ends, decided from its plan and what the phases recorded (pure): bad
// input is a terminal error (an invalid mode, a mode the apiserver refused for some machines: only an
// edit can fix it, and the edit is an event), a write that may work next time is a retried error
// (it takes precedence: a retry also retries the rejected machines), anything else is done.
import { CleaningModeRejectedError, InvalidCleaningModeError, MachineUpdateError } from './errors.ts';
import type { TemplateScope } from './scope.ts';

export function failureOf(scope: Pick<TemplateScope, 'plan' | 'observed'>): Error | undefined {
  const plan = scope.plan.cleaningMode;
  if (plan.kind === 'invalid') return new InvalidCleaningModeError(plan.message);
  const outcome = scope.observed.propagation;
  if (!outcome) return undefined;
  if (outcome.failed.length > 0) return new MachineUpdateError(outcome.failed.map((f) => f.name), outcome.failed.map((f) => f.error));
  if (outcome.rejected.length > 0) {
    return new CleaningModeRejectedError(outcome.rejected.map((r) => r.name), outcome.rejected.map((r) => r.message).join('; '));
  }
  return undefined;
}
