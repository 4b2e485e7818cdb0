// M-30/M-25/M-31: keeping the host as the Metal3Machine wants it once associated. One merge patch
// re-asserts the claim (consumerRef, controller owner reference, cluster label) and writes the
// deployment once its data is ready (image or customDeploy with the user data, metadata and network
// data Secrets), the cleaning mode and power on every pass (N-2, E-9). The machine's addresses are
// read back from the host's hardware details, filtered (host-addresses.ts). A host not yet claimed is
// claimed here under its lock (the record of a crash between record and claim, which associate.ts let
// stand because selection would choose that host). A record of a host the machine cannot have is
// found here too (staleHostRecord), so the reconcile can forget it and choose again.
import type { Metal3Machine, Metal3MachineStatusAddresses } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { claimedHost } from '@metal3-ts/baremetal/claim';
import { type HostConsumer, isClaimedBy } from '@metal3-ts/baremetal/consumer';
import { hostKey, patchHost } from '@metal3-ts/baremetal/host-patch';
import { CrossNamespaceSecretError, metal3MachineProvisioning, provisionedHost } from '@metal3-ts/baremetal/provision';
import { isClaimed } from '@metal3-ts/baremetal/states';
import { deepEqual } from '@metal3-ts/shared/patch/diff';
import { type DataReferences, withReferences } from '../data-references.ts';
import type { MachineReconcilerDeps } from '../deps.ts';
import { HostTakenError, InvalidConfigurationError } from '../errors.ts';
import { hostAddresses } from '../host-addresses.ts';
import { CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import type { Claimant } from '../scope.ts';

/** `Kind namespace/name` of the host's consumer, for messages. */
function consumerText(host: Readonly<BareMetalHost>): string {
  const ref = host.spec?.consumerRef;
  return `${ref?.kind ?? ''} ${ref?.namespace ?? ''}/${ref?.name ?? ''}`;
}

/**
 * The machine records a host it cannot have: the host is gone, or another consumer holds it. Returns
 * what to forget and why, or undefined when the record stands.
 */
export function staleHostRecord(
  m3m: Readonly<Metal3Machine>,
  host: Readonly<BareMetalHost> | undefined,
  consumer: HostConsumer,
): { readonly recorded: string; readonly message: string } | undefined {
  const recorded = m3m.metadata.annotations?.[HOST_ANNOTATION];
  if (!recorded) return undefined;
  if (!host) return { recorded, message: `BareMetalHost ${recorded} not found for machine ${m3m.metadata.name ?? ''}; choosing again` };
  if (isClaimed(host) && !isClaimedBy(host, consumer.ref)) {
    return { recorded, message: `BareMetalHost ${recorded} is consumed by ${consumerText(host)}; choosing again` };
  }
  return undefined;
}

export interface HostKept {
  /** The written (or unchanged) host. */
  readonly host: BareMetalHost;
  /** M-31: the host's addresses as the machine shows them. */
  readonly addresses: Metal3MachineStatusAddresses[];
  /** What of the host's inspection data was not copied to `status.addresses`, in words. */
  readonly droppedAddresses: readonly string[];
}

/**
 * Writes the host as the machine wants it and returns the addresses the machine shows. `deploy`
 * is false while the data template's Secrets are not ready (M-36): the claim and power are still kept.
 * Throws HostTakenError, InvalidConfigurationError (a Secret in another namespace), or a
 * ConflictError when the host changed meanwhile (the harness retries the reconcile with backoff).
 */
export async function reconcileHost(
  deps: MachineReconcilerDeps,
  m3m: Metal3Machine,
  refs: Readonly<DataReferences>,
  host: Readonly<BareMetalHost>,
  { consumer, clusterName }: Claimant,
  deploy: boolean,
): Promise<HostKept> {
  if (isClaimed(host) && !isClaimedBy(host, consumer.ref)) {
    throw new HostTakenError(`BareMetalHost ${hostKey(host)} is consumed by ${consumerText(host)}, not by this Metal3Machine`);
  }
  const claimed = claimedHost(host, { consumer: consumer.ref, labels: { [CLUSTER_NAME_LABEL]: clusterName } });
  const provisioning = metal3MachineProvisioning(withReferences(m3m, refs));
  let desired: BareMetalHost;
  try {
    desired = provisionedHost(claimed, deploy ? provisioning : { ...provisioning, deployment: undefined });
  } catch (error) {
    if (error instanceof CrossNamespaceSecretError) throw new InvalidConfigurationError(error.message, { cause: error });
    throw error;
  }
  // Lock only when the claim itself changes (consumerRef, the owner list replaced whole): BMO's frequent
  // status writes would otherwise turn every deployment or power write into a conflict and a retry.
  const optimisticLock = !isClaimedBy(host, consumer.ref) || !deepEqual(host.metadata.ownerReferences, claimed.metadata.ownerReferences);
  const written = await patchHost(deps.client, host, desired, { optimisticLock, onWrite: (h) => deps.inventory.noteWrite(h) });
  const current = written ?? (host as BareMetalHost);
  m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [HOST_ANNOTATION]: hostKey(current) };
  const { addresses, dropped } = hostAddresses(current);
  return { host: current, addresses, droppedAddresses: dropped };
}
