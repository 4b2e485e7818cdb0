// BMO's check of a host's BMC details before it talks to the BMC (every state but `''` and
// `unmanaged`). The messages are BMO's; what the simulator does not check is the address format
// (BMO refuses unknown driver schemes such as `foo://`).
import type { BareMetalHost, BareMetalHostStatusGoodCredentials } from '@metal3-ts/generated/metal3.io/v1alpha1';

/** The part of a Secret the check reads. */
export interface BmcSecret {
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
}

export type CredentialsCheck =
  | { readonly ok: true; readonly credentials: BareMetalHostStatusGoodCredentials }
  /** `retry`: BMO looks again after a delay (a missing Secret may yet be created); otherwise it waits for a change. */
  | { readonly ok: false; readonly message: string; readonly retry: boolean };

/** BMO's "has BMC details": an address or a credentials name; without either the host is unmanaged. */
export function hasBmcDetails(host: Readonly<BareMetalHost>): boolean {
  return (host.spec?.bmc?.address ?? '') !== '' || (host.spec?.bmc?.credentialsName ?? '') !== '';
}

function decoded(secret: BmcSecret, key: string): string {
  const value = secret.data?.[key];
  if (value === undefined) return '';
  try {
    return atob(value).trim();
  } catch {
    return '';
  }
}

/** Checks the host's BMC details against its credentials Secret (`undefined`: not found). */
export function checkCredentials(host: Readonly<BareMetalHost>, secret: BmcSecret | undefined): CredentialsCheck {
  const name = host.spec?.bmc?.credentialsName ?? '';
  const namespace = host.metadata.namespace ?? '';
  if (name === '') return { ok: false, message: 'The BMC secret reference is empty', retry: false };
  if (!secret) return { ok: false, message: `The BMC secret ${namespace}/${name} does not exist`, retry: true };
  if ((host.spec?.bmc?.address ?? '') === '') return { ok: false, message: "Missing BMC connection detail 'Address'", retry: false };
  if (decoded(secret, 'username') === '') return { ok: false, message: "Missing BMC connection detail 'username' in credentials", retry: false };
  if (decoded(secret, 'password') === '') return { ok: false, message: "Missing BMC connection details 'password' in credentials", retry: false };
  return { ok: true, credentials: { credentials: { name, namespace }, credentialsVersion: secret.metadata.resourceVersion ?? '' } };
}

/** Whether recorded credentials (good or tried) are the ones just checked (same Secret, same version). */
export function sameCredentials(a: BareMetalHostStatusGoodCredentials | undefined, b: BareMetalHostStatusGoodCredentials): boolean {
  return a?.credentials?.name === b.credentials?.name && a?.credentials?.namespace === b.credentials?.namespace &&
    a?.credentialsVersion === b.credentialsVersion;
}
