// Small edits to a draft BareMetalHost status, each one a rule of the real BMO: how errors are
// recorded and cleared, which states time an operation in `status.operationHistory`, which
// provisioning settings are saved while preparing.
import type { BareMetalHost, BareMetalHostStatus, BareMetalHostStatusOperationHistory } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { ProvisioningState } from '@metal3-ts/baremetal/states';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { type ErrorTypeName, OperationalStatus } from './names.ts';

/** The status of a host BMO has not touched yet: every field the CRD requires, at its zero value. */
export function emptyStatus(): BareMetalHostStatus {
  // BMO's Image is a struct, not a pointer: an unprovisioned host reports `image: {url: ""}`.
  return { errorCount: 0, errorMessage: '', operationalStatus: '', poweredOn: false, provisioning: { ID: '', state: '', image: { url: '' } } };
}

/** A mutable copy of `status` with every required field present. */
export function draftStatus(status: Readonly<BareMetalHostStatus> | undefined): BareMetalHostStatus {
  const base = emptyStatus();
  if (!status) return base;
  const copy = structuredClone(status) as BareMetalHostStatus;
  return { ...base, ...copy, provisioning: { ...base.provisioning, ...copy.provisioning } };
}

/** BMO's setErrorMessage: error status, type and message, one more error counted. */
export function setError(status: BareMetalHostStatus, type: ErrorTypeName, message: string): void {
  status.operationalStatus = OperationalStatus.Error;
  status.errorType = type;
  status.errorMessage = message;
  status.errorCount = (status.errorCount ?? 0) + 1;
}

/** BMO's clearError: OK, no error type or message; `errorCount` is left for the state change to reset. */
export function clearError(status: BareMetalHostStatus): boolean {
  const dirty = status.operationalStatus !== OperationalStatus.OK || status.errorType !== undefined || status.errorMessage !== '';
  status.operationalStatus = OperationalStatus.OK;
  delete status.errorType;
  status.errorMessage = '';
  return dirty;
}

type Operation = keyof BareMetalHostStatusOperationHistory;

/** The states whose duration BMO records in `status.operationHistory`. */
export function operationOf(state: string): Operation | undefined {
  switch (state) {
    case ProvisioningState.Registering:
      return 'register';
    case ProvisioningState.Inspecting:
      return 'inspect';
    case ProvisioningState.Provisioning:
      return 'provision';
    case ProvisioningState.Deprovisioning:
      return 'deprovision';
    default:
      return undefined;
  }
}

/** recordStateBegin: a new start unless the operation is already running. (Zero times are omitted, not null.) */
export function beginOperation(status: BareMetalHostStatus, state: string, now: string): void {
  const op = operationOf(state);
  if (!op) return;
  const history = (status.operationHistory ??= {});
  const entry = history[op];
  if (!entry?.start || entry.end) history[op] = { start: now };
}

/** recordStateEnd: stamps the end of a running operation; returns whether it did. */
export function endOperation(status: BareMetalHostStatus, state: string, now: string): boolean {
  const op = operationOf(state);
  const entry = op ? status.operationHistory?.[op] : undefined;
  if (!entry?.start || entry.end) return false;
  entry.end = now;
  return true;
}

/** Starts the operation of `state` over (a retry after a failure), as if it had just begun. */
export function restartOperation(status: BareMetalHostStatus, state: string, now: string): void {
  const op = operationOf(state);
  if (op) (status.operationHistory ??= {})[op] = { start: now };
}

/** How long the operation of `state` has been running; undefined when it has no start recorded. */
export function operationElapsedMs(status: Readonly<BareMetalHostStatus>, state: string, now: Date): number | undefined {
  const op = operationOf(state);
  const start = op ? status.operationHistory?.[op]?.start : undefined;
  if (!start) return undefined;
  const at = Date.parse(start);
  return Number.isNaN(at) ? undefined : now.getTime() - at;
}

/** The boot mode BMO saves on entering registering, inspecting and provisioning (default UEFI). */
export function saveBootMode(status: BareMetalHostStatus, host: Readonly<BareMetalHost>): void {
  status.provisioning.bootMode = host.spec?.bootMode ?? 'UEFI';
}

/**
 * The settings preparing applies and saves (root device hints, RAID, firmware). Without hints in the
 * spec BMO uses its default hardware profile's, which names /dev/sda.
 */
function wantedSettings(host: Readonly<BareMetalHost>): Pick<BareMetalHostStatus['provisioning'], 'rootDeviceHints' | 'raid' | 'firmware'> {
  return {
    rootDeviceHints: structuredClone(host.spec?.rootDeviceHints) ?? { deviceName: '/dev/sda' },
    ...(host.spec?.raid ? { raid: structuredClone(host.spec.raid) } : {}),
    ...(host.spec?.firmware ? { firmware: structuredClone(host.spec.firmware) } : {}),
  };
}

/** Whether the saved settings differ from the spec's: an available host then goes back to preparing. */
export function settingsChanged(status: Readonly<BareMetalHostStatus>, host: Readonly<BareMetalHost>): boolean {
  const wanted = wantedSettings(host);
  const { rootDeviceHints, raid, firmware } = status.provisioning;
  return !deepEqual({ rootDeviceHints, raid, firmware }, wanted);
}

export function saveSettings(status: BareMetalHostStatus, host: Readonly<BareMetalHost>): void {
  clearSettings(status);
  Object.assign(status.provisioning, wantedSettings(host));
}

/** clearHostProvisioningSettings: done when deprovisioning ends, so the next deployment prepares afresh. */
export function clearSettings(status: BareMetalHostStatus): void {
  delete status.provisioning.rootDeviceHints;
  delete status.provisioning.raid;
  delete status.provisioning.firmware;
}
