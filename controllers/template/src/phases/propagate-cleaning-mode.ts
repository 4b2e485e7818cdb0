// Phase `cleaning mode` (T-6): the template's automatedCleaningMode onto each machine the plan lists.
// One JSON merge patch of that one field per machine, without a resourceVersion precondition: it
// cannot overwrite anything but the field it owns, so a concurrent write by the Metal3Machine
// controller (status, providerID, ...) neither conflicts nor is lost. CAPM3 sends a full Update
// instead. Every machine is tried whatever happened to the others; what each write came to is
// recorded on the scope (outcome.ts turns it into the reconcile's error). An invalid mode writes
// nothing and is a Warning event on the template.
// Writes: `patch metal3machines` (merge patch), Events.
import { type Client, isInvalid, isNotFound } from '@metal3-ts/generated';
import { type Metal3Machine, Metal3MachineResource, type Metal3MachineTemplate } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { EventRecorder } from '@metal3-ts/shared/events/recorder';
import type { CleaningMode } from '../cleaning-mode.ts';
import type { PhaseFn } from '../context.ts';
import { REASONS } from '../names.ts';

export interface PropagationDeps {
  readonly client: Client;
  readonly events?: EventRecorder | undefined;
}

/** What happened to each machine of the plan. */
export interface PropagationOutcome {
  readonly updated: readonly string[];
  /** Deleted since the cache saw them: nothing to do. */
  readonly gone: readonly string[];
  /** The apiserver refused the value (422): retrying the same write cannot succeed. */
  readonly rejected: readonly { readonly name: string; readonly message: string }[];
  /** Anything else: worth a retry. */
  readonly failed: readonly { readonly name: string; readonly error: unknown }[];
}

const describe = (mode: string | undefined) => (mode === undefined ? 'unset' : JSON.stringify(mode));

export async function propagateCleaningMode(
  deps: PropagationDeps,
  template: Readonly<Metal3MachineTemplate>,
  mode: CleaningMode,
  machines: readonly Readonly<Metal3Machine>[],
): Promise<PropagationOutcome> {
  const outcome: { -readonly [K in keyof PropagationOutcome]: PropagationOutcome[K][number][] } = { updated: [], gone: [], rejected: [], failed: [] };
  for (const machine of machines) {
    const name = machine.metadata.name ?? '';
    try {
      const written = await deps.client.api(Metal3MachineResource, machine.metadata.namespace).mergePatch(name, { spec: { automatedCleaningMode: mode } });
      outcome.updated.push(name);
      deps.events?.normal(
        written,
        REASONS.updated,
        `automatedCleaningMode set to ${describe(mode)} (was ${describe(machine.spec?.automatedCleaningMode)}) from Metal3MachineTemplate ${
          template.metadata.name ?? ''
        }`,
      );
    } catch (error) {
      if (isNotFound(error)) outcome.gone.push(name);
      else if (isInvalid(error)) {
        const message = `Metal3Machine ${name} rejected automatedCleaningMode ${describe(mode)}: ${error.serverMessage}`;
        outcome.rejected.push({ name, message });
        deps.events?.warning(template, REASONS.rejected, message);
      } else outcome.failed.push({ name, error });
    }
  }
  return outcome;
}

export const reconcileCleaningMode: PhaseFn = async (ctx, scope) => {
  const plan = scope.plan.cleaningMode;
  if (plan.kind === 'unset') return;
  if (plan.kind === 'invalid') {
    ctx.deps.events?.warning(scope.template, REASONS.invalid, plan.message);
    return;
  }
  if (plan.updates.length === 0) {
    if (plan.paused) scope.log.debug('paused Metal3Machines wait for their unpause', { paused: plan.paused });
    return;
  }
  const outcome = await propagateCleaningMode(ctx.deps, scope.template, plan.mode, plan.updates);
  scope.observed.propagation = outcome;
  scope.log.info('propagated automatedCleaningMode', {
    mode: plan.mode,
    updated: outcome.updated.length,
    inSync: plan.inSync,
    ...(plan.paused ? { paused: plan.paused } : {}),
    ...(outcome.gone.length ? { gone: outcome.gone.length } : {}),
    ...(outcome.rejected.length ? { rejected: outcome.rejected.map((r) => r.name) } : {}),
  });
};
