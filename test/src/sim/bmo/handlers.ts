// One handler per provisioning state, as in BMO's host_state_machine.go: each looks at the draft
// status and the spec and says what happens next. Where BMO asks Ironic (is inspection done? did the
// deployment finish?), the simulator asks the clock and the injected faults instead.
import type { BareMetalHost, BareMetalHostStatus, BareMetalHostStatusGoodCredentials } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ProvisioningState as State } from '@metal3-ts/baremetal/states';
import { hasBmcDetails } from './credentials.ts';
import { type Fault, faultMessage } from './faults.ts';
import { HardwareOverrideError, inspectedHardware } from './hardware.ts';
import { ErrorType, INSPECT_ANNOTATION, OperationalStatus, REBOOT_ANNOTATION_PREFIX } from './names.ts';
import { beginOperation, clearError, clearSettings, operationElapsedMs, restartOperation, saveSettings, setError, settingsChanged } from './status.ts';
import type { BmoTimings } from './timings.ts';

/** "Look again right away": the harness needs a positive delay. */
export const AT_ONCE_MS = 1;

/** Everything a handler may read; it edits only `status` (the draft). */
export interface HostContext {
  readonly host: Readonly<BareMetalHost>;
  readonly status: BareMetalHostStatus;
  readonly now: Date;
  /** `now` as the RFC 3339 timestamp written to the status. */
  readonly stamp: string;
  readonly timings: BmoTimings;
  readonly faults: ReadonlySet<Fault>;
  readonly deleting: boolean;
  /** The checked BMC credentials; absent while deleting without usable ones (BMO's haveCreds false). */
  readonly credentials?: BareMetalHostStatusGoodCredentials;
}

/** BMO's action results: wait (actionContinue), update (actionUpdate), transition (actionComplete), failed, release (deleteComplete). */
export type Outcome =
  | { readonly kind: 'wait'; readonly afterMs?: number; readonly reason: string; readonly removeAnnotations?: readonly string[] }
  | { readonly kind: 'update'; readonly afterMs?: number; readonly reason: string }
  | { readonly kind: 'transition'; readonly to: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'release' };

/** A state no handler knows (BMO answers "no handler found for state" and retries). */
export class UnknownStateError extends Error {
  override name = 'UnknownStateError';
}

const transition = (to: string): Outcome => ({ kind: 'transition', to });
const wait = (reason: string, afterMs?: number): Outcome => ({ kind: 'wait', reason, ...(afterMs ? { afterMs } : {}) });
const orAtOnce = (ms: number): number => (ms > 0 ? ms : AT_ONCE_MS);

function fail(ctx: HostContext, type: (typeof ErrorType)[keyof typeof ErrorType], message: string): Outcome {
  setError(ctx.status, type, message);
  return { kind: 'failed', reason: message };
}

export function inspectionDisabled(host: Readonly<BareMetalHost>): boolean {
  return host.metadata.annotations?.[INSPECT_ANNOTATION] === 'disabled' || host.spec?.inspectionMode === 'disabled';
}

/** `inspect.metal3.io` with any value but `disabled` asks an available host to inspect again. */
function inspectionRequested(host: Readonly<BareMetalHost>): boolean {
  const value = host.metadata.annotations?.[INSPECT_ANNOTATION];
  return value !== undefined && value !== 'disabled';
}

function hasRebootAnnotation(host: Readonly<BareMetalHost>): boolean {
  return Object.keys(host.metadata.annotations ?? {}).some((k) => k === REBOOT_ANNOTATION_PREFIX || k.startsWith(`${REBOOT_ANNOTATION_PREFIX}/`));
}

/** NeedsProvisioning: online, with an image URL or a custom deploy method. */
export function needsProvisioning(host: Readonly<BareMetalHost>): boolean {
  return host.spec?.online === true && ((host.spec.image?.url ?? '') !== '' || (host.spec.customDeploy?.method ?? '') !== '');
}

/** BMO's provisioningCancelled: the spec no longer asks for what was (or is being) deployed. */
export function provisioningCancelled(host: Readonly<BareMetalHost>, status: Readonly<BareMetalHostStatus>): boolean {
  const specMethod = host.spec?.customDeploy?.method ?? '';
  const deployedMethod = status.provisioning.customDeploy?.method ?? '';
  const specImage = host.spec?.image?.url ?? '';
  const deployedImage = status.provisioning.image?.url ?? '';
  if (specMethod !== '') {
    if (deployedMethod !== '' && specMethod !== deployedMethod) return true;
    return deployedImage !== '' && specImage !== deployedImage;
  }
  if (deployedMethod !== '') return true;
  if (specImage === '') return true;
  return deployedImage !== '' && specImage !== deployedImage;
}

/**
 * How much of the current state's timed operation is left (0: done). A state entered by someone
 * else has no recorded start: it starts now.
 */
function remainingMs(ctx: HostContext, durationMs: number): number {
  const state = ctx.status.provisioning.state;
  let elapsed = operationElapsedMs(ctx.status, state, ctx.now);
  if (elapsed === undefined) {
    beginOperation(ctx.status, state, ctx.stamp);
    elapsed = 0;
  }
  return Math.max(0, durationMs - elapsed);
}

/** manageHostPower: `status.poweredOn` follows `spec.online`; a reboot annotation holds a provisioned host off. */
function manageHostPower(ctx: HostContext): Outcome {
  const { host, status } = ctx;
  if (!status.poweredOn && host.metadata.annotations?.[REBOOT_ANNOTATION_PREFIX] !== undefined) {
    // The suffixless annotation asks for one reboot: once off, it is consumed and the host comes back.
    return {
      kind: 'wait',
      reason: 'reboot: host is off, one-shot reboot annotation removed',
      afterMs: AT_ONCE_MS,
      removeAnnotations: [REBOOT_ANNOTATION_PREFIX],
    };
  }
  const state = status.provisioning.state;
  const provisioned = state === State.Provisioned || state === State.ExternallyProvisioned;
  const desired = host.spec?.online === true && !(provisioned && hasRebootAnnotation(host));
  if (status.poweredOn === desired) return wait('steady');
  if (ctx.faults.has('power')) return fail(ctx, ErrorType.PowerManagement, faultMessage('power'));
  status.poweredOn = desired;
  status.errorCount = 0;
  clearError(status);
  return { kind: 'update', reason: `powered ${desired ? 'on' : 'off'}`, afterMs: AT_ONCE_MS };
}

function handleNone(ctx: HostContext): Outcome {
  if (hasBmcDetails(ctx.host)) return transition(State.Registering);
  ctx.status.operationalStatus = OperationalStatus.Discovered;
  return transition(State.Unmanaged);
}

function handleRegistering(ctx: HostContext): Outcome {
  // Reaching the handler means registration with the current credentials succeeded.
  ctx.status.errorCount = 0;
  if (ctx.host.spec?.externallyProvisioned) return transition(State.ExternallyProvisioned);
  return transition(inspectionDisabled(ctx.host) ? State.Preparing : State.Inspecting);
}

function handleInspecting(ctx: HostContext): Outcome {
  const { host, status } = ctx;
  if (inspectionDisabled(host)) {
    status.errorCount = 0;
    return transition(State.Preparing);
  }
  if (inspectionRequested(host)) {
    return { kind: 'wait', reason: 'inspection started, inspect annotation removed', afterMs: AT_ONCE_MS, removeAnnotations: [INSPECT_ANNOTATION] };
  }
  if (status.errorType === ErrorType.Inspection) {
    // A retry is a new inspection: BMO clears the error as soon as Ironic runs it again.
    clearError(status);
    restartOperation(status, State.Inspecting, ctx.stamp);
    return { kind: 'update', reason: 'inspection restarted', afterMs: orAtOnce(ctx.timings.inspectionMs) };
  }
  const left = remainingMs(ctx, ctx.timings.inspectionMs);
  if (left > 0) return wait('inspecting', left);
  if (ctx.faults.has('inspection')) return fail(ctx, ErrorType.Inspection, faultMessage('inspection'));
  try {
    status.hardware = inspectedHardware(host);
  } catch (error) {
    if (error instanceof HardwareOverrideError) return fail(ctx, ErrorType.Inspection, error.message);
    throw error;
  }
  clearError(status);
  status.errorCount = 0;
  return transition(State.Preparing);
}

function handleExternallyProvisioned(ctx: HostContext): Outcome {
  if (ctx.host.spec?.externallyProvisioned) return manageHostPower(ctx);
  const inspect = !ctx.status.hardware && !inspectionDisabled(ctx.host);
  return transition(inspect ? State.Inspecting : State.Preparing);
}

function handlePreparing(ctx: HostContext): Outcome {
  if (ctx.faults.has('preparation')) {
    clearSettings(ctx.status);
    return fail(ctx, ErrorType.Preparation, faultMessage('preparation'));
  }
  saveSettings(ctx.status, ctx.host);
  clearError(ctx.status);
  ctx.status.errorCount = 0;
  return transition(State.Available);
}

function handleAvailable(ctx: HostContext): Outcome {
  const { host, status } = ctx;
  if (host.spec?.externallyProvisioned) {
    clearSettings(status);
    return transition(State.ExternallyProvisioned);
  }
  if (inspectionRequested(host)) return transition(State.Inspecting);
  if (settingsChanged(status, host)) return transition(State.Preparing);
  if (needsProvisioning(host)) {
    clearError(status);
    return transition(State.Provisioning);
  }
  return manageHostPower(ctx);
}

function handleProvisioning(ctx: HostContext): Outcome {
  const { host, status } = ctx;
  // A failed deployment is undone by deprovisioning, then tried again from available.
  if (status.errorType || provisioningCancelled(host, status)) return transition(State.Deprovisioning);
  const left = remainingMs(ctx, ctx.timings.provisioningMs);
  if (left > 0) return wait('provisioning', left);
  if (ctx.faults.has('provisioning')) return fail(ctx, ErrorType.Provisioning, faultMessage('provisioning'));
  if (host.spec?.image) status.provisioning.image = structuredClone(host.spec.image);
  if (host.spec?.customDeploy) status.provisioning.customDeploy = structuredClone(host.spec.customDeploy);
  status.errorCount = 0;
  return transition(State.Provisioned);
}

function handleProvisioned(ctx: HostContext): Outcome {
  if (provisioningCancelled(ctx.host, ctx.status)) return transition(State.Deprovisioning);
  return manageHostPower(ctx);
}

function handleDeprovisioning(ctx: HostContext): Outcome {
  const { host, status, timings } = ctx;
  const duration = host.spec?.automatedCleaningMode === 'disabled' ? timings.deprovisioningWithoutCleaningMs : timings.deprovisioningMs;
  if (status.errorType) {
    // Deprovisioning after a failure (or retrying a failed one) is forced; BMO clears the error once it runs.
    clearError(status);
    restartOperation(status, State.Deprovisioning, ctx.stamp);
    return { kind: 'update', reason: 'deprovisioning restarted', afterMs: orAtOnce(duration) };
  }
  const left = remainingMs(ctx, duration);
  if (left > 0) return wait('deprovisioning', left);
  if (ctx.faults.has('deprovisioning')) {
    const failed = fail(ctx, ErrorType.Provisioning, faultMessage('deprovisioning'));
    // Deleting: BMO gives up cleaning after three failures and goes on with the deletion.
    return ctx.deleting && status.errorCount > 3 ? transition(State.PoweringOffBeforeDelete) : failed;
  }
  status.provisioning.image = { url: '' };
  delete status.provisioning.customDeploy;
  clearSettings(status);
  // Ironic leaves a cleaned (or torn down) node powered off.
  status.poweredOn = false;
  status.errorCount = 0;
  return transition(ctx.deleting ? State.PoweringOffBeforeDelete : State.Available);
}

function handlePoweringOffBeforeDelete(ctx: HostContext): Outcome {
  if (ctx.faults.has('power')) {
    const failed = fail(ctx, ErrorType.PowerManagement, faultMessage('power'));
    return ctx.status.errorCount > 3 ? transition(State.Deleting) : failed;
  }
  ctx.status.poweredOn = false;
  ctx.status.errorCount = 0;
  clearError(ctx.status);
  return transition(State.Deleting);
}

/** The handler of the host's current state. */
export function handleState(ctx: HostContext): Outcome {
  const state = ctx.status.provisioning.state;
  switch (state) {
    case State.None:
      return handleNone(ctx);
    case State.Unmanaged:
      return hasBmcDetails(ctx.host) ? transition(State.Registering) : wait('unmanaged: no BMC details');
    case State.Registering:
      return handleRegistering(ctx);
    case State.Inspecting:
      return handleInspecting(ctx);
    case State.MatchProfile:
      ctx.status.errorCount = 0;
      return transition(State.Preparing);
    case State.ExternallyProvisioned:
      return handleExternallyProvisioned(ctx);
    case State.Preparing:
      return handlePreparing(ctx);
    case State.Available:
    case State.Ready:
      return handleAvailable(ctx);
    case State.Provisioning:
      return handleProvisioning(ctx);
    case State.Provisioned:
      return handleProvisioned(ctx);
    case State.Deprovisioning:
      return handleDeprovisioning(ctx);
    case State.PoweringOffBeforeDelete:
      return handlePoweringOffBeforeDelete(ctx);
    case State.Deleting:
      return { kind: 'release' };
    default:
      throw new UnknownStateError(`no handler found for state "${state}"`);
  }
}
