// Releasing a host (research section 4, X-3…X-15) in two steps with a wait between them. First the
// deployment is removed and power set for cleaning, which makes BMO deprovision the host; once BMO is
// done, the claim itself is dropped (consumerRef, owner reference, our labels and our pause) and the
// host may be reserved for node reuse. `releaseHost` performs whichever step is due and says which.
import { type Client, isNotFound } from '@metal3-ts/generated';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { apiGroupOf } from '@metal3-ts/shared/meta/owner-references';
import { type ConsumerReference, isClaimedBy } from './consumer.ts';
import { copyHost, type HostWriteOptions, patchHost } from './host-patch.ts';
import { CLUSTER_NAME_LABEL } from '@metal3-ts/shared/meta/cluster-api-names';
import { CAPM3_PAUSE_VALUE, HOST_PAUSED_ANNOTATION, NODE_REUSE_LABEL } from './names.ts';
import { hasFinishedDeprovisioning, provisioningState } from './states.ts';

export interface HostDeprovisioning {
  /**
   * Which Secret references to drop with the deployment. CAPM3 drops each only when the
   * machine's status names one (so references a data template rendered survive, E-25). Default true.
   */
  readonly clearUserData?: boolean;
  readonly clearMetaData?: boolean;
  readonly clearNetworkData?: boolean;
  /**
   * The CAPM3_FAST_TRACK setting (X-6 as CAPM3 v1.13 decides it, B2-14): `'true'` keeps the host
   * powered on between deployments unless cleaning is disabled; any other value, unset included,
   * powers it off. A host with `disablePowerOff` always stays on.
   */
  readonly fastTrack?: string;
}

export interface HostRelease extends HostDeprovisioning {
  readonly consumer: ConsumerReference;
  /** Our cluster: its cluster-name label is removed from the host, another cluster's is kept. */
  readonly clusterName?: string;
  /**
   * Reserve the host for the next machine of this control plane or MachineDeployment (X-10, N-6):
   * the value of the node-reuse label, `cp-<name>` or `md-<name>`. The caller decides whether reuse
   * applies (the released machine's template has `nodeReuse: true` and the cluster is not deleting).
   */
  readonly nodeReuseName?: string;
}

/**
 * The host without its deployment and with power set for cleaning (X-5, X-6 with B2-14): image
 * and customDeploy removed, the chosen Secret references removed, `online` true when the host may
 * not be powered off (`disablePowerOff`: BMO refuses `online: false` there) or fast track keeps it
 * on for cleaning, else false.
 */
export function deprovisionedHost(host: Readonly<BareMetalHost>, options: HostDeprovisioning = {}): BareMetalHost {
  const next = copyHost(host);
  const spec = next.spec;
  if (!spec) return next;
  delete spec.image;
  delete spec.customDeploy;
  if (options.clearUserData ?? true) delete spec.userData;
  if (options.clearMetaData ?? true) delete spec.metaData;
  if (options.clearNetworkData ?? true) delete spec.networkData;
  spec.online = spec.disablePowerOff === true || (options.fastTrack === 'true' && spec.automatedCleaningMode !== 'disabled');
  return next;
}

const ownedBy = (consumer: ConsumerReference) => (ref: { name: string; kind: string; apiVersion: string }): boolean =>
  ref.name === consumer.name && ref.kind === consumer.kind && apiGroupOf(ref.apiVersion) === apiGroupOf(consumer.apiVersion);

/** The host without our owner references (all entries with our name, kind and API group, X-13). */
export function withoutOwner(host: Readonly<BareMetalHost>, consumer: ConsumerReference): BareMetalHost {
  const next = copyHost(host);
  const owners = next.metadata.ownerReferences;
  if (owners) {
    const kept = owners.filter((ref) => !ownedBy(consumer)(ref));
    if (kept.length > 0) next.metadata.ownerReferences = kept;
    else delete next.metadata.ownerReferences;
  }
  return next;
}

/**
 * The host handed back: consumerRef removed, our owner references removed,
 * the cluster-name label removed if it names our cluster, our pause annotation removed (a user's
 * pause and the status annotation stay), and the node-reuse label set when asked.
 */
export function releasedHost(host: Readonly<BareMetalHost>, release: HostRelease): BareMetalHost {
  const next = withoutOwner(host, release.consumer);
  if (next.spec) delete next.spec.consumerRef;
  const labels = next.metadata.labels;
  if (labels && release.clusterName !== undefined && labels[CLUSTER_NAME_LABEL] === release.clusterName) delete labels[CLUSTER_NAME_LABEL];
  if (release.nodeReuseName) next.metadata.labels = { ...(next.metadata.labels ?? {}), [NODE_REUSE_LABEL]: release.nodeReuseName };
  const annotations = next.metadata.annotations;
  if (annotations?.[HOST_PAUSED_ANNOTATION] === CAPM3_PAUSE_VALUE) delete annotations[HOST_PAUSED_ANNOTATION];
  return next;
}

export type ReleaseStep =
  /**
   * The host is not (or no longer) held by this consumer: nothing of the claim is touched, only a
   * stale owner reference to us is removed (else the garbage collector would delete the host with
   * us; CAPM3 forgets to write that removal, E-19). Release is complete.
   */
  | { readonly step: 'not-ours'; readonly host: BareMetalHost }
  /**
   * Waiting for BMO: `started` when this call removed the deployment (look again at once, X-7),
   * otherwise BMO is still busy in `state` (look again later, X-8).
   */
  | { readonly step: 'deprovisioning'; readonly started: boolean; readonly state: string; readonly host: BareMetalHost }
  /** The claim is dropped; the host is free again (or reserved for node reuse). */
  | { readonly step: 'released'; readonly host: BareMetalHost }
  /** The host no longer exists; nothing left to release. */
  | { readonly step: 'gone' };

export type ReleaseOptions = Pick<HostWriteOptions, 'onWrite' | 'fieldManager'>;

/**
 * Performs the next due step of releasing `host` from `release.consumer`. Call it again, on each
 * reconcile, until it returns `released`, `not-ours` or `gone`.
 *
 * Errors: a ConflictError when the host changed while its owner references were being rewritten
 * (those writes are locked on the resourceVersion); retry with a fresh copy.
 */
export async function releaseHost(client: Client, host: Readonly<BareMetalHost>, release: HostRelease, options: ReleaseOptions = {}): Promise<ReleaseStep> {
  try {
    if (!isClaimedBy(host, release.consumer)) {
      const written = await patchHost(client, host, withoutOwner(host, release.consumer), { ...options, optimisticLock: true });
      return { step: 'not-ours', host: written ?? (host as BareMetalHost) };
    }
    const deprovisioned = await patchHost(client, host, deprovisionedHost(host, release), options);
    if (deprovisioned) return { step: 'deprovisioning', started: true, state: provisioningState(deprovisioned), host: deprovisioned };
    if (!hasFinishedDeprovisioning(host)) return { step: 'deprovisioning', started: false, state: provisioningState(host), host: host as BareMetalHost };
    const released = await patchHost(client, host, releasedHost(host, release), { ...options, optimisticLock: true });
    return { step: 'released', host: released ?? (host as BareMetalHost) };
  } catch (error) {
    if (isNotFound(error)) return { step: 'gone' };
    throw error;
  }
}
