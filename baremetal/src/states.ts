// Pure predicates over a BareMetalHost: its provisioning state and the marks that make it unusable.
// Provisioning states are an open enum: BMO may add states in any release, so every predicate treats
// an unknown state as "not the state asked about" and never throws.
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { CAPM3_PAUSE_VALUE, DEPRECATED_UNHEALTHY_ANNOTATION, HOST_PAUSED_ANNOTATION, NODE_REUSE_LABEL, UNHEALTHY_ANNOTATION } from './names.ts';

/** The provisioning states of baremetal-operator v0.12.6 (`status.provisioning.state`). */
export const ProvisioningState = {
  None: '',
  Unmanaged: 'unmanaged',
  Registering: 'registering',
  MatchProfile: 'match profile',
  Preparing: 'preparing',
  Ready: 'ready',
  Available: 'available',
  Provisioning: 'provisioning',
  Provisioned: 'provisioned',
  ExternallyProvisioned: 'externally provisioned',
  Deprovisioning: 'deprovisioning',
  Inspecting: 'inspecting',
  PoweringOffBeforeDelete: 'powering off before delete',
  Deleting: 'deleting',
} as const;

export type KnownProvisioningState = (typeof ProvisioningState)[keyof typeof ProvisioningState];

/** A known state, or any string a newer BMO reports. */
export type ProvisioningStateName = KnownProvisioningState | (string & Record<never, never>);

const known: ReadonlySet<string> = new Set(Object.values(ProvisioningState));

export function isKnownProvisioningState(state: string): state is KnownProvisioningState {
  return known.has(state);
}

/** The host's provisioning state; a host BMO has not reconciled yet reports `''` (None). */
export function provisioningState(host: Readonly<BareMetalHost>): ProvisioningStateName {
  return host.status?.provisioning?.state ?? ProvisioningState.None;
}

/** `ready` (older BMO) and `available` both mean "inspected, idle, can be provisioned" (H-8). */
export function isAvailableState(state: string): boolean {
  return state === ProvisioningState.Ready || state === ProvisioningState.Available;
}

/** Only `provisioned` counts: an externally provisioned host never gets a providerID through us (E-50). */
export function isProvisioned(host: Readonly<BareMetalHost>): boolean {
  return provisioningState(host) === ProvisioningState.Provisioned;
}

export function isExternallyProvisioned(host: Readonly<BareMetalHost>): boolean {
  return provisioningState(host) === ProvisioningState.ExternallyProvisioned;
}

/** BMO is writing the image (or running the custom deploy step). */
export function isProvisioning(host: Readonly<BareMetalHost>): boolean {
  return provisioningState(host) === ProvisioningState.Provisioning;
}

/** BMO is wiping the host after its image was removed. */
export function isDeprovisioning(host: Readonly<BareMetalHost>): boolean {
  return provisioningState(host) === ProvisioningState.Deprovisioning;
}

/**
 * True once a host whose image was removed can be handed back: it is in a state that carries
 * no deployment (`''`, `unmanaged`, `registering`, `match profile`, `inspecting`, `ready`,
 * `available`), or it is `externally provisioned` and powered off. Every other state, including
 * unknown ones, means "keep waiting", which is the safe answer for a state we cannot interpret.
 */
export function hasFinishedDeprovisioning(host: Readonly<BareMetalHost>): boolean {
  switch (provisioningState(host)) {
    case ProvisioningState.None:
    case ProvisioningState.Unmanaged:
    case ProvisioningState.Registering:
    case ProvisioningState.MatchProfile:
    case ProvisioningState.Inspecting:
    case ProvisioningState.Ready:
    case ProvisioningState.Available:
      return true;
    case ProvisioningState.ExternallyProvisioned:
      return !isPoweredOn(host);
    default:
      return false;
  }
}

/** BMO reports an error (`status.errorMessage` non-empty); such hosts are never selected (H-6). */
export function hasError(host: Readonly<BareMetalHost>): boolean {
  return (host.status?.errorMessage ?? '') !== '';
}

/** The power state BMO last observed. */
export function isPoweredOn(host: Readonly<BareMetalHost>): boolean {
  return host.status?.poweredOn === true;
}

/** The power state asked for in the spec. */
export function isOnline(host: Readonly<BareMetalHost>): boolean {
  return host.spec?.online === true;
}

export function isBeingDeleted(host: Readonly<BareMetalHost>): boolean {
  return host.metadata.deletionTimestamp !== undefined;
}

/** Paused by anyone (the annotation's presence is what BMO honours). */
export function isPaused(host: Readonly<BareMetalHost>): boolean {
  return host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] !== undefined;
}

/** Paused by CAPM3 or by us, which is the only pause we may lift (M-15, X-14). */
export function isPausedByUs(host: Readonly<BareMetalHost>): boolean {
  return host.metadata.annotations?.[HOST_PAUSED_ANNOTATION] === CAPM3_PAUSE_VALUE;
}

/** Marked unhealthy under either key, CAPM3 v1.13's or the deprecated one (B2-11). */
export function isUnhealthy(host: Readonly<BareMetalHost>): boolean {
  const annotations = host.metadata.annotations ?? {};
  return UNHEALTHY_ANNOTATION in annotations || DEPRECATED_UNHEALTHY_ANNOTATION in annotations;
}

/** Some consumer holds the host (`spec.consumerRef` is set). */
export function isClaimed(host: Readonly<BareMetalHost>): boolean {
  return host.spec?.consumerRef != null;
}

/** The host is reserved for a control plane or MachineDeployment (label present, any value). */
export function hasNodeReuseLabel(host: Readonly<BareMetalHost>): boolean {
  return host.metadata.labels?.[NODE_REUSE_LABEL] !== undefined;
}

/**
 * Unclaimed and not excluded by any mark (H-5, H-6): not being deleted, no error, not paused, not
 * unhealthy. Says nothing about the provisioning state or a node-reuse reservation.
 */
export function isFree(host: Readonly<BareMetalHost>): boolean {
  return !isClaimed(host) && !isBeingDeleted(host) && !hasError(host) && !isPaused(host) && !isUnhealthy(host);
}

/**
 * Available to any new consumer (H-5…H-8): free, not reserved by a node-reuse label, and in state
 * `ready` or `available`. Hosts not checked here on purpose (H-9): `spec.online`, power state,
 * `operationalStatus`, an image already set, `externallyProvisioned`, the detached annotation.
 */
export function isAvailable(host: Readonly<BareMetalHost>): boolean {
  return isFree(host) && !hasNodeReuseLabel(host) && isAvailableState(provisioningState(host));
}
