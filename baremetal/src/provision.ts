// Provisioning a claimed host (M-25): what to deploy (an image or a custom deploy step, with the
// user-data, metadata and network-data Secrets) is written once, to a host that carries no
// deployment yet, because BMO cannot re-provision in place (a new image needs a release and a new
// claim). Cleaning mode and power are re-applied every time.
import type { Client } from '@metal3-ts/generated';
import type { Metal3Machine } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost, BareMetalHostSpec, BareMetalHostSpecImage } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { copyHost, hostKey, type HostWriteOptions, patchHost } from './host-patch.ts';

/** A Secret reference; an empty namespace means the host's own namespace. */
export interface SecretReference {
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
}

export interface HostDeployment {
  readonly image?: Readonly<BareMetalHostSpecImage> | undefined;
  readonly customDeploy?: { readonly method: string } | undefined;
  readonly userData?: SecretReference | undefined;
  readonly metaData?: SecretReference | undefined;
  readonly networkData?: SecretReference | undefined;
}

/** The desired provisioning of a host. */
export interface HostProvisioning {
  /** Written only if the host has neither `image` nor `customDeploy` yet; omit while not ready to deploy. */
  readonly deployment?: HostDeployment | undefined;
  /** Applied on every call when set (N-2: template changes reach existing hosts). */
  readonly automatedCleaningMode?: 'metadata' | 'disabled' | undefined;
  /** Power; CAPM3 forces `true` on every update (E-9), which is the default here too. */
  readonly online?: boolean | undefined;
}

/** A Secret reference points outside the host's namespace, which BMO and CAPM3 both refuse. */
export class CrossNamespaceSecretError extends Error {
  override name = 'CrossNamespaceSecretError';
}

/** The host already carries an image or a custom deploy step, i.e. a deployment BMO acts on. */
export function hasDeployment(host: Readonly<BareMetalHost>): boolean {
  return host.spec?.image != null || host.spec?.customDeploy != null;
}

function secretRef(field: string, ref: SecretReference, host: Readonly<BareMetalHost>): { name?: string; namespace: string } {
  const namespace = host.metadata.namespace ?? '';
  if (ref.namespace && ref.namespace !== namespace) {
    throw new CrossNamespaceSecretError(`cross-namespace secret reference is not allowed for ${field} on host ${hostKey(host)} (namespace "${ref.namespace}")`);
  }
  return ref.name === undefined ? { namespace } : { name: ref.name, namespace };
}

/**
 * The host with `provisioning` applied (M-25). Only fields that are given are set: a deployment
 * without `metaData` keeps the host's metaData reference. Throws CrossNamespaceSecretError for a
 * Secret in another namespace.
 */
export function provisionedHost(host: Readonly<BareMetalHost>, provisioning: HostProvisioning): BareMetalHost {
  const next = copyHost(host);
  const spec: BareMetalHostSpec = { ...(next.spec as BareMetalHostSpec) };
  const deployment = provisioning.deployment;
  if (deployment && !hasDeployment(host)) {
    if (deployment.image) {
      const { url, checksum, checksumType, format } = deployment.image;
      spec.image = { url, ...(checksum ? { checksum } : {}), ...(checksumType ? { checksumType } : {}), ...(format ? { format } : {}) };
    }
    if (deployment.customDeploy) spec.customDeploy = { method: deployment.customDeploy.method };
    if (deployment.userData) spec.userData = secretRef('userData', deployment.userData, host);
    if (deployment.metaData) spec.metaData = secretRef('metaData', deployment.metaData, host);
    if (deployment.networkData) spec.networkData = secretRef('networkData', deployment.networkData, host);
  }
  if (provisioning.automatedCleaningMode) spec.automatedCleaningMode = provisioning.automatedCleaningMode;
  spec.online = provisioning.online ?? true;
  next.spec = spec;
  return next;
}

/**
 * What a Metal3Machine asks of its host (M-25): the deployment once `status.userData` is known
 * (image when `spec.image.url` is set, customDeploy when set, the user/meta/network data Secrets from
 * status), its cleaning mode, and power on.
 */
export function metal3MachineProvisioning(machine: Readonly<Metal3Machine>): HostProvisioning {
  const { spec, status } = machine;
  const image = spec?.image?.url
    ? { url: spec.image.url, checksum: spec.image.checksum, checksumType: spec.image.checksumType, format: spec.image.format }
    : undefined;
  const deployment: HostDeployment | undefined = status?.userData
    ? { image, customDeploy: spec?.customDeploy, userData: status.userData, metaData: status.metaData, networkData: status.networkData }
    : undefined;
  return { deployment, automatedCleaningMode: spec?.automatedCleaningMode, online: true };
}

export type ProvisionOptions = Pick<HostWriteOptions, 'onWrite' | 'fieldManager' | 'optimisticLock'>;

/** Writes `provisioning` to `host` as one patch; `changed` is false when the host already agreed. */
export async function provisionHost(
  client: Client,
  host: Readonly<BareMetalHost>,
  provisioning: HostProvisioning,
  options: ProvisionOptions = {},
): Promise<{ readonly changed: boolean; readonly host: BareMetalHost }> {
  const written = await patchHost(client, host, provisionedHost(host, provisioning), options);
  return written ? { changed: true, host: written } : { changed: false, host: host as BareMetalHost };
}
