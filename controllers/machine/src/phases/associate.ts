// M-21…M-27: choosing and claiming a host for a Metal3Machine. Two locks make it safe for any number
// of workers and replicas (CAPM3 needs a process-wide mutex and still races across replicas, E-1):
// - the chosen host is first recorded on the Metal3Machine (M-41) by a patch locked on the machine's
//   resourceVersion (host-record.ts): of two reconciles of one machine (two replicas), only the first
//   to record goes on to claim, so one machine never holds two hosts;
// - the claim is one merge patch locked on the host's resourceVersion (baremetal/src/claim.ts), so a
//   host never gets two consumers; a lost claim removes the record and the machine chooses again.
// Candidates come from the informer's host index, not a list of the namespace per association (H-1).
// A crash between record and claim leaves a record of an unclaimed host, which the next pass claims
// (or forgets, if someone else took it: phases/host.ts); a host claimed before the record existed
// (upstream CAPM3, a restore) is found first on the next pass (H-4, E-31).
// A record of a host nobody holds (that crash, or an annotation a user wrote) is no way around
// selection (M-40 changed): the record stands (and the host update claims the host) only when the
// host passes the selector and every filter selection applies; otherwise it is forgotten with a
// Warning event and the machine chooses anew (reviewRecord).
import { type Client, isNotFound } from '@metal3-ts/generated';
import type { Cluster, Machine } from '@metal3-ts/generated/cluster.x-k8s.io/v1beta1';
import { SecretResource } from '@metal3-ts/generated/core/v1';
import { type Metal3Machine, Metal3MachineResource } from '@metal3-ts/generated/infrastructure.cluster.x-k8s.io/v1beta1';
import type { BareMetalHost } from '@metal3-ts/generated/metal3.io/v1alpha1';
import { claimHost, readHost } from '@metal3-ts/baremetal/claim';
import { type HostConsumer, isClaimedBy, metal3MachineConsumer } from '@metal3-ts/baremetal/consumer';
import { hostKey } from '@metal3-ts/baremetal/host-patch';
import { InvalidHostSelectorError } from '@metal3-ts/baremetal/label-selector';
import { nodeReuseName } from '@metal3-ts/baremetal/node-reuse';
import { chooseHost, exclusionOf, exclusionText } from '@metal3-ts/baremetal/selection';
import { provisioningState } from '@metal3-ts/baremetal/states';
import type { Logger } from '@metal3-ts/shared/log/logger';
import type { MachineReconcilerDeps } from '../deps.ts';
import { InvalidConfigurationError } from '../errors.ts';
import { BMC_SECRET_LABELLED_ANNOTATION, CLUSTER_NAME_LABEL, HOST_ANNOTATION } from '../names.ts';
import type { Claimant } from '../scope.ts';
import { forgetHost, recordHost } from './host-record.ts';

export type AssociateOutcome =
  | { readonly kind: 'associated'; readonly host: BareMetalHost; readonly choice: 'owned' | 'reused' | 'picked' }
  /**
   * The record names the free host selection would choose (a crash between record and claim): it
   * stands, and the host update claims it under the host's lock as on any pass (phases/host.ts).
   */
  | { readonly kind: 'kept' }
  /** Nothing to take now; `message` says what is awaited. */
  | { readonly kind: 'waiting'; readonly message: string; readonly retrySoon: boolean }
  /** Another reconcile of the same machine (another replica) recorded a host first: look again soon. */
  | { readonly kind: 'lost'; readonly message: string };

/** N-3/N-4: the machine's reuse name, or undefined when it has none (then no reserved host matches, N-5). */
export function reuseNameOf(deps: Pick<MachineReconcilerDeps, 'informers'>, machine: Readonly<Machine>): string | undefined {
  try {
    return nodeReuseName(machine, deps.informers.machineSets.store.list(machine.metadata.namespace));
  } catch {
    return undefined;
  }
}

/** The consumer the host selection works for. */
export function consumerOf(deps: Pick<MachineReconcilerDeps, 'informers'>, m3m: Readonly<Metal3Machine>, machine: Readonly<Machine> | undefined): HostConsumer {
  return metal3MachineConsumer(m3m, machine ? reuseNameOf(deps, machine) : undefined);
}

/** Computed once per reconcile and handed to every phase that claims, keeps or releases a host. */
export function claimantOf(
  deps: Pick<MachineReconcilerDeps, 'informers'>,
  m3m: Readonly<Metal3Machine>,
  machine: Readonly<Machine>,
  cluster: Readonly<Cluster>,
): Claimant {
  return { consumer: consumerOf(deps, m3m, machine), clusterName: machine.spec?.clusterName || cluster.metadata.name || '' };
}

function describeSelector(m3m: Readonly<Metal3Machine>): string {
  const selector = m3m.spec?.hostSelector;
  const parts = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(selector?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} (${(e.values ?? []).join(',')})`),
  ];
  return parts.length > 0 ? `matching ${parts.join(', ')}` : 'in the namespace';
}

/**
 * Chooses a host (section 2), records it on the machine (M-41, locked), claims it (M-22, locked),
 * and labels its BMC Secret (M-26). A claim lost to another machine removes the record again and asks
 * to choose again soon. `recorded` is the unclaimed host the machine's annotation already names: see
 * reviewRecord. Throws InvalidConfigurationError for an invalid host selector (H-3).
 */
export async function reconcileAssociate(
  deps: MachineReconcilerDeps,
  m3m: Metal3Machine,
  claimant: Claimant,
  recorded?: Readonly<BareMetalHost>,
  log?: Logger,
): Promise<AssociateOutcome> {
  const { consumer, clusterName } = claimant;
  const api = deps.client.api(Metal3MachineResource, m3m.metadata.namespace);
  let base: Readonly<Metal3Machine> = m3m;
  if (recorded) {
    const review = await selecting(() => reviewRecord(deps, m3m, consumer, recorded, log));
    if (review.kind !== 'forgotten') return review;
    base = review.written;
  }
  const choice = await selecting(() => chooseHost(deps.inventory.candidates(consumer), consumer, deps.random ? { random: deps.random } : {}));
  switch (choice.outcome) {
    case 'none':
      return { kind: 'waiting', message: `No available host found: waiting for an available BareMetalHost ${describeSelector(m3m)}`, retrySoon: false };
    case 'reuse-pending':
      return {
        kind: 'waiting',
        message: `Found BareMetalHost(s) with nodeReuseLabelName in not-available state: waiting for ${hostKey(choice.host)} (${
          provisioningState(choice.host) || 'no state'
        })`,
        retrySoon: false,
      };
    default:
      break;
  }
  const key = hostKey(choice.host);
  const record = await recordHost(api, base, key);
  if (!record) return { kind: 'lost', message: 'the Metal3Machine is gone' };
  if (record.host !== key) return { kind: 'lost', message: `BareMetalHost ${record.host} was recorded for this machine meanwhile` };
  const recordedNow = record.written ?? base;
  const claim = await claimHost(deps.client, choice.host, { consumer: consumer.ref, labels: { [CLUSTER_NAME_LABEL]: clusterName } }, {
    onWrite: (h) => deps.inventory.noteWrite(h),
  });
  if (!claim.claimed) {
    await forgetHost(api, recordedNow, key);
    return { kind: 'waiting', message: `BareMetalHost ${key} was taken by another machine meanwhile; choosing again`, retrySoon: true };
  }
  m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [HOST_ANNOTATION]: key };
  await labelCredentials(deps.client, m3m, claim.host, clusterName);
  return { kind: 'associated', host: claim.host, choice: choice.outcome };
}

/** Runs a step of host selection, turning an invalid selector into invalid configuration (H-3). */
async function selecting<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof InvalidHostSelectorError) throw new InvalidConfigurationError(error.message, { cause: error });
    throw error;
  }
}

type Review = { readonly kind: 'kept' } | Extract<AssociateOutcome, { kind: 'lost' }> | { readonly kind: 'forgotten'; readonly written: Metal3Machine };

/**
 * M-40 (changed): a record of a host nobody holds stands only if the host passes the selector and
 * every filter of selection (H-2, H-3, H-5, H-6, H-8), or was this machine's before (its controller
 * owner reference carries this machine's uid: a claim removed by hand); then the host update claims
 * it under the host's lock. Otherwise the record is forgotten and the reason logged and told by a
 * Warning event. A machine that holds another host (H-4) forgets the record at once; any other
 * verdict against the record is confirmed on a fresh read first, since the cache may lag behind
 * another replica that recorded this very host and is claiming it.
 */
async function reviewRecord(
  deps: MachineReconcilerDeps,
  m3m: Metal3Machine,
  consumer: HostConsumer,
  recorded: Readonly<BareMetalHost>,
  log: Logger | undefined,
): Promise<Review> {
  const key = hostKey(recorded);
  const held = deps.inventory.ownedBy(consumer.ref)[0];
  let why: string | undefined;
  if (held) {
    why = `is not the host this machine holds (${hostKey(held)})`;
  } else {
    if (heldBefore(recorded, m3m) || !exclusionOf(recorded, consumer)) return { kind: 'kept' };
    const fresh = await readHost(deps.client, recorded);
    if (fresh && isClaimedBy(fresh, consumer.ref)) return { kind: 'lost', message: `BareMetalHost ${key} was claimed for this machine meanwhile` };
    const exclusion = fresh && exclusionOf(fresh, consumer);
    if (fresh && !exclusion) return { kind: 'kept' };
    why = fresh && exclusion ? exclusionText(exclusion, fresh) : 'does not exist';
  }
  const value = m3m.metadata.annotations?.[HOST_ANNOTATION] ?? '';
  const written = await forgetHost(deps.client.api(Metal3MachineResource, m3m.metadata.namespace), m3m, value);
  if (!written) return { kind: 'lost', message: 'the host record changed meanwhile' };
  // Told once: only the reconcile that removed the record gets here.
  const message = `Ignoring annotation ${HOST_ANNOTATION}: ${value}: BareMetalHost ${key} ${why}; choosing a host by the host selector instead`;
  log?.warn(message);
  deps.events?.warning(m3m, 'HostAnnotationIgnored', message);
  Object.assign(m3m.metadata, { annotations: written.metadata.annotations ?? {} });
  return { kind: 'forgotten', written };
}

/** The host names this machine (by uid) as its controller owner: it was claimed by this very object. */
function heldBefore(host: Readonly<BareMetalHost>, m3m: Readonly<Metal3Machine>): boolean {
  const uid = m3m.metadata.uid;
  return !!uid && (host.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === uid && ref.kind === 'Metal3Machine');
}

/**
 * M-26: the BMC credentials Secret gets the cluster-name label, so `clusterctl move` moves it with the
 * cluster. A merge patch: no read of the Secret (its contents are none of our business).
 * Changed from upstream: asked on every pass, not only right after the claim, so a refused write
 * (403) is retried until it lands; the machine's BMC_SECRET_LABELLED_ANNOTATION (written with the
 * reconcile's own patch of the machine) says it did, so a settled machine makes no request for it.
 * A missing Secret does not fail the association (E-10); there is nothing to move, and nothing is
 * marked, so a Secret created later is labelled too.
 */
export async function labelCredentials(client: Client, m3m: Metal3Machine, host: Readonly<BareMetalHost>, clusterName: string): Promise<void> {
  const name = host.spec?.bmc?.credentialsName;
  if (!name) return;
  const mark = `${hostKey(host)}/${name}`;
  if (m3m.metadata.annotations?.[BMC_SECRET_LABELLED_ANNOTATION] === mark) return;
  try {
    await client.api(SecretResource, host.metadata.namespace).mergePatch(name, { metadata: { labels: { [CLUSTER_NAME_LABEL]: clusterName } } });
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  m3m.metadata.annotations = { ...(m3m.metadata.annotations ?? {}), [BMC_SECRET_LABELLED_ANNOTATION]: mark };
}
