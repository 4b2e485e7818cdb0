// Phase `spec`: the Metal3Machine's own spec before anything is claimed or written. A reference into
// another namespace (issue 21) stops the machine for good (InvalidConfigurationError); the Machine's
// failure domain is copied (M-10), so host selection prefers it; the claimant every host phase works
// for is computed once.
import type { MachineContext, PhaseResult } from '../context.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { foreignReferencesMessage } from '../references.ts';
import { type MachineScope, reconciling } from '../scope.ts';
import { claimantOf } from './associate.ts';

export function reconcileSpec(ctx: MachineContext, scope: MachineScope): PhaseResult {
  const { machine, cluster } = reconciling(scope);
  const m3m = scope.m3m;
  const foreign = foreignReferencesMessage(m3m);
  if (foreign) throw new InvalidConfigurationError(foreign);
  const spec = (m3m.spec ??= {});
  if (machine.spec?.failureDomain && spec.failureDomain !== machine.spec.failureDomain) spec.failureDomain = machine.spec.failureDomain;
  scope.claimant = claimantOf(ctx.deps, m3m, machine, cluster);
  return undefined;
}
