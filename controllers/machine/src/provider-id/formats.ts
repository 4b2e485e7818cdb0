// The two providerID spellings a Metal3Machine may end up with (research P-1, P-3, P-15), kept apart
// from any I/O so the rules that decide "which Node is ours" can be checked with plain tables.
// Workload clusters in the field carry both spellings: the legacy one from kubelets started with the
// BareMetalHost UID, the new one from templates that use the rendered `providerid` metadata key. The
// error texts are upstream's, word for word (including the space before the comma), because users
// grep for them.

/** The scheme every CAPM3 providerID starts with. */
export const PROVIDER_ID_PREFIX = 'metal3://';

/** Legacy spelling: `metal3://<BareMetalHost UID>` (P-1). */
export function legacyProviderID(hostUid: string): string {
  return `${PROVIDER_ID_PREFIX}${hostUid}`;
}

/** Default spelling: `metal3://<Metal3Machine namespace>/<BareMetalHost name>/<Metal3Machine name>` (P-1). */
export function newProviderID(namespace: string, hostName: string, metal3MachineName: string): string {
  return `${PROVIDER_ID_PREFIX}${namespace}/${hostName}/${metal3MachineName}`;
}

/**
 * Which input of the candidate computation is missing (P-3):
 * `HostName` the host annotation is absent or points elsewhere; `HostMissing` no associated
 * BareMetalHost; `HostUid` the host has no UID.
 */
export type ProviderIDErrorKind = 'HostName' | 'HostMissing' | 'HostUid';

/**
 * The candidate providerIDs cannot be computed yet. Upstream treats every case as transient
 * (requeue after 30 s, P-7, P-8) and wraps the message in "unable to retrieve BMH name from
 * Metal3Machine: …"; callers add that context themselves.
 */
export class ProviderIDError extends Error {
  override name = 'ProviderIDError';
  readonly kind: ProviderIDErrorKind;

  constructor(kind: ProviderIDErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** What P-3 reads from the Metal3Machine. */
export interface ProviderIDMachine {
  readonly name: string;
  readonly namespace: string;
  /** The `metal3.io/BareMetalHost` annotation (`<namespace>/<host name>`), if any. */
  readonly hostAnnotation: string | undefined;
}

/** Both spellings one Metal3Machine's Node may carry. */
export interface ProviderIDCandidates {
  readonly legacy: string;
  readonly new: string;
}

/**
 * The BareMetalHost name from the Metal3Machine's host annotation (P-3, also P-10's default).
 *
 * The annotation's namespace must equal the Metal3Machine's: host lookups ignore it, but the
 * providerID is built from the Metal3Machine namespace, so a foreign prefix would name a host that
 * is not the one in the ID (E-29). Deliberately stricter than upstream, which takes the second
 * `/`-separated part of anything with at least two parts: here the value must be exactly
 * `<namespace>/<name>` with a non-empty name (we write the annotation ourselves, so only a hand
 * edit can break this, and an ID like `metal3://ns//m3m` helps nobody).
 *
 * @throws ProviderIDError (`HostName`) when the annotation is missing or malformed.
 */
export function hostNameFromAnnotation(metal3Machine: ProviderIDMachine): string {
  const value = metal3Machine.hostAnnotation ?? '';
  const parts = value.split('/');
  const [namespace, name] = parts;
  if (parts.length !== 2 || namespace !== metal3Machine.namespace || !name) {
    throw new ProviderIDError('HostName', `unable to retrieve bmh name from metal3machine: ${metal3Machine.name} , using annotation: ${value}`);
  }
  return name;
}

/** Input of {@link providerIDCandidates}: the Metal3Machine and what the caller found of its host. */
export interface ProviderIDCandidatesInput {
  readonly metal3Machine: ProviderIDMachine;
  /** `metadata.uid` of the associated BareMetalHost; ignored unless `hostFound`. */
  readonly hostUid: string | undefined;
  /** Whether the associated BareMetalHost could be fetched (M-40). */
  readonly hostFound: boolean;
}

/**
 * The legacy and new providerIDs for this Metal3Machine (`getPossibleProviderIDs`, P-3).
 *
 * Checks, in upstream order: the host annotation, then the host, then its UID.
 *
 * @throws ProviderIDError naming the first missing input.
 */
export function providerIDCandidates(input: ProviderIDCandidatesInput): ProviderIDCandidates {
  const { metal3Machine } = input;
  const hostName = hostNameFromAnnotation(metal3Machine);
  if (!input.hostFound) throw new ProviderIDError('HostMissing', `Failed to get a BaremetalHost for the metal3machine: ${metal3Machine.name}`);
  if (!input.hostUid) throw new ProviderIDError('HostUid', 'Missing BaremetalHost UID');
  return { legacy: legacyProviderID(input.hostUid), new: newProviderID(metal3Machine.namespace, hostName, metal3Machine.name) };
}

/** A providerID split as `GetProviderIDAndBMHID` does (P-15). */
export interface ParsedProviderID {
  /** The providerID as given; `''` when there is none. */
  readonly providerID: string;
  /** The BareMetalHost UID, present only for the legacy spelling. */
  readonly hostUid?: string;
}

/**
 * Splits a providerID into itself and, for the legacy spelling, the host UID (P-15).
 *
 * Guarantees, as upstream: no providerID ⇒ `{ providerID: '' }`; a leading `metal3://` is dropped
 * before looking; a remainder containing `/` is the new spelling and carries no UID; anything
 * else is taken as the UID, even without the scheme and even when empty (`''` ⇒ `hostUid: ''`).
 */
export function parseProviderID(providerID: string | undefined): ParsedProviderID {
  if (providerID === undefined) return { providerID: '' };
  const rest = providerID.startsWith(PROVIDER_ID_PREFIX) ? providerID.slice(PROVIDER_ID_PREFIX.length) : providerID;
  return rest.includes('/') ? { providerID } : { providerID, hostUid: rest };
}
