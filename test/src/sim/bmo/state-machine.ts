// The simulated BMO's decision for one host, as a pure function: given the host, the time, the
// timings and the host's BMC Secret, what to write next and when to look again. The order of the
// checks is BMO's Reconcile: pause, status restore, finalizer, BMC credentials, then the state
// machine (deletion, detach, registration, the handler of the current state).
import type { BareMetalHost, BareMetalHostStatus } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ProvisioningState as State } from '@metal3-ts/baremetal/states';
import { type BmcSecret, checkCredentials, sameCredentials } from './credentials.ts';
import { faultMessage, injectedFaults } from './faults.ts';
import { AT_ONCE_MS, handleState, type HostContext, type Outcome } from './handlers.ts';
import { ironicNodeId } from './hardware.ts';
import { BMO_FINALIZER, DETACHED_ANNOTATION, ErrorType, OperationalStatus, PAUSED_ANNOTATION, STATUS_ANNOTATION } from './names.ts';
import { beginOperation, clearError, draftStatus, endOperation, saveBootMode, setError } from './status.ts';
import type { BmoTimings } from './timings.ts';

export { AT_ONCE_MS, UnknownStateError } from './handlers.ts';

/** What to do to a host now. Absent fields mean "leave as is". */
export interface HostStep {
  /** The whole new status, written through /status (`lastUpdated` already set). */
  readonly status?: BareMetalHostStatus;
  readonly addFinalizer?: true;
  /** The host is gone from the provisioner: let the apiserver delete it. */
  readonly removeFinalizer?: true;
  readonly removeAnnotations?: readonly string[];
  /** Look again after this long (ms); absent: wait for a change to the host or its Secret. */
  readonly requeueAfterMs?: number;
  /** What happened, for logs and test messages (`registering → inspecting`). */
  readonly reason: string;
}

/** What the simulator observed besides the host. */
export interface HostObservation {
  /** The Secret named by `spec.bmc.credentialsName` in the host's namespace, if it exists. */
  readonly bmcSecret?: BmcSecret | undefined;
}

function written(status: BareMetalHostStatus, stamp: string, reason: string, requeueAfterMs?: number): HostStep {
  return { status: { ...status, lastUpdated: stamp }, reason, ...(requeueAfterMs ? { requeueAfterMs } : {}) };
}

/** BMO restores a status saved in the status annotation onto a host that has none, and drops a stale annotation. */
function restoreStatus(host: Readonly<BareMetalHost>, stamp: string): HostStep | undefined {
  const saved = host.metadata.annotations?.[STATUS_ANNOTATION];
  if (saved === undefined) return undefined;
  if (host.status?.lastUpdated) {
    return { removeAnnotations: [STATUS_ANNOTATION], requeueAfterMs: AT_ONCE_MS, reason: 'status present: status annotation removed' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(saved);
  } catch {
    return undefined; // BMO ignores an unreadable copy and starts from scratch
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const status = draftStatus(parsed as BareMetalHostStatus);
  status.lastUpdated ??= stamp;
  return { status, requeueAfterMs: AT_ONCE_MS, reason: 'status restored from the status annotation' };
}

/** checkInitiateDelete: the state a deleted host moves to first, or undefined to let the state machine run. */
function initiateDelete(ctx: HostContext): Outcome | undefined {
  if (!ctx.deleting) return undefined;
  const { status } = ctx;
  const unregistrable = status.errorType === ErrorType.Registration && status.errorCount > 3;
  switch (status.provisioning.state) {
    case State.None:
    case State.Unmanaged:
    case State.Registering:
      return { kind: 'transition', to: State.Deleting };
    case State.Provisioning:
    case State.Provisioned:
      // A detached host cannot be touched: it is deleted without deprovisioning.
      return { kind: 'transition', to: status.operationalStatus === OperationalStatus.Detached ? State.Deleting : State.Deprovisioning };
    case State.Deprovisioning:
    case State.PoweringOffBeforeDelete:
      return unregistrable ? { kind: 'transition', to: State.Deleting } : undefined;
    case State.Deleting:
      return undefined;
    default:
      return { kind: 'transition', to: State.PoweringOffBeforeDelete };
  }
}

/** checkDetachedHost: the detached annotation stops all management of an idle or provisioned host. */
function checkDetached(ctx: HostContext): Outcome | undefined {
  const { host, status } = ctx;
  const detachable = [State.Provisioned, State.ExternallyProvisioned, State.Ready, State.Available] as string[];
  if (host.metadata.annotations?.[DETACHED_ANNOTATION] !== undefined && detachable.includes(status.provisioning.state)) {
    if (status.operationalStatus === OperationalStatus.Detached) return { kind: 'wait', reason: 'detached' };
    status.operationalStatus = OperationalStatus.Detached;
    return { kind: 'update', reason: 'detached from the provisioner' };
  }
  if (status.operationalStatus === OperationalStatus.Detached) {
    status.operationalStatus = status.errorType ? OperationalStatus.Error : OperationalStatus.OK;
    return { kind: 'update', reason: 'attached again', afterMs: AT_ONCE_MS };
  }
  return undefined;
}

/** ensureRegistered: (re)registers with the BMC whenever the credentials or a registration error ask for it. */
function ensureRegistered(ctx: HostContext): Outcome | undefined {
  const { host, status, credentials } = ctx;
  const state = status.provisioning.state;
  if (!credentials) return undefined;
  if (state === State.None || state === State.Unmanaged || state === State.MatchProfile || state === State.Deleting) return undefined;
  if (state !== State.Registering && (status.errorType === ErrorType.Registration || !sameCredentials(status.goodCredentials, credentials))) {
    beginOperation(status, State.Registering, ctx.stamp);
  }
  let dirty = false;
  if (!sameCredentials(status.triedCredentials, credentials)) {
    status.triedCredentials = structuredClone(credentials);
    dirty = true;
  }
  if (ctx.faults.has('registration')) {
    setError(status, ErrorType.Registration, faultMessage('registration'));
    return { kind: 'failed', reason: status.errorMessage };
  }
  const id = ironicNodeId(host);
  if (status.provisioning.ID !== id) {
    status.provisioning.ID = id;
    dirty = true;
  }
  const newCredentials = !sameCredentials(status.goodCredentials, credentials);
  if (newCredentials) {
    status.goodCredentials = structuredClone(credentials);
    dirty = true;
  }
  if (status.errorType === ErrorType.Registration || newCredentials) dirty = clearError(status) || dirty;
  let outcome: Outcome | undefined = dirty ? { kind: 'update', reason: 'registered with the BMC', afterMs: AT_ONCE_MS } : undefined;
  if (state !== State.Registering && endOperation(status, State.Registering, ctx.stamp)) {
    outcome = { kind: 'update', reason: 're-registered with the BMC', afterMs: AT_ONCE_MS };
  }
  return outcome;
}

function stepOf(ctx: HostContext, outcome: Outcome): HostStep | undefined {
  const { status, stamp } = ctx;
  switch (outcome.kind) {
    case 'wait':
      if (!outcome.afterMs && !outcome.removeAnnotations) return undefined;
      return {
        reason: outcome.reason,
        ...(outcome.afterMs ? { requeueAfterMs: outcome.afterMs } : {}),
        ...(outcome.removeAnnotations ? { removeAnnotations: outcome.removeAnnotations } : {}),
      };
    case 'update':
      return written(status, stamp, outcome.reason, outcome.afterMs);
    case 'failed':
      return written(status, stamp, outcome.reason, ctx.timings.errorBackoffMs(status.errorCount));
    case 'release':
      return { removeFinalizer: true, reason: 'deleted from the provisioner: finalizer removed' };
    case 'transition': {
      const from = status.provisioning.state;
      endOperation(status, from, stamp);
      beginOperation(status, outcome.to, stamp);
      status.provisioning.state = outcome.to;
      if (outcome.to === State.Registering || outcome.to === State.Inspecting || outcome.to === State.Provisioning) saveBootMode(status, ctx.host);
      return written(status, stamp, `${from || '(none)'} → ${outcome.to}`, AT_ONCE_MS);
    }
  }
}

/**
 * The next step for `host` at `now`, or undefined when there is nothing to do until the host (or its
 * BMC Secret) changes. Pure: the same inputs give the same step.
 */
export function nextHostStatus(host: Readonly<BareMetalHost>, now: Date, timings: BmoTimings, observed: HostObservation = {}): HostStep | undefined {
  if (host.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined) return undefined;
  const stamp = now.toISOString();
  const restored = restoreStatus(host, stamp);
  if (restored) return restored;

  const deleting = host.metadata.deletionTimestamp != null;
  const finalized = host.metadata.finalizers?.includes(BMO_FINALIZER) ?? false;
  if (!deleting && !finalized) return { addFinalizer: true, requeueAfterMs: AT_ONCE_MS, reason: `finalizer ${BMO_FINALIZER} added` };
  if (!finalized) return undefined; // deleted before BMO ever took it on: nothing of ours to clean up

  const status = draftStatus(host.status);
  const state = status.provisioning.state;
  let credentials: HostContext['credentials'];
  if (state !== State.None && state !== State.Unmanaged) {
    const check = checkCredentials(host, observed.bmcSecret);
    if (check.ok) credentials = check.credentials;
    else if (!deleting) {
      setError(status, ErrorType.Registration, check.message);
      return written(status, stamp, check.message, check.retry ? timings.missingCredentialsRetryMs : undefined);
    }
  }
  const ctx: HostContext = { host, status, now, stamp, timings, faults: injectedFaults(host), deleting, ...(credentials ? { credentials } : {}) };
  const outcome = initiateDelete(ctx) ?? checkDetached(ctx) ?? ensureRegistered(ctx) ?? handleState(ctx);
  return stepOf(ctx, outcome);
}
